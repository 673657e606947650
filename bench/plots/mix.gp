# bench/plots/mix.gp: the dashboard-mix chart (pages/s per case and target).
# Input: mix.dat of bench/scenarios/mix.sh;
# gnuplot -e "in='...'; out='...'; sfc='yes|no'" mix.gp (no: sfcache's bars are left out)
set terminal pngcairo size 1000,520 font "DejaVu Sans,10"
set output out
array names[3] = ["sfcache", "plain PostgreSQL", "pgpool-II"]
array colors[3] = ["#2a9d8f", "#8d99ae", "#e76f51"]
first = (sfc eq "yes") ? 1 : 2
note = (sfc eq "yes") ? "" : "\nsfcache: no result cache yet"
set title "LMS dashboard: pages/s (12 queries per page, Zipf students; medians)".note
set style data histogram
set style histogram clustered gap 1
set style fill solid 0.85 border -1
set boxwidth 0.9
set grid ytics
set yrange [0:*]
set ylabel "pages/s"
set xlabel "clients, writer"
# one label per case, slanted so that long ones ("64, writer 100/s") never overlap
set xtics rotate by -30 offset -1,0 nomirror
set bmargin 6
set key top right
plot for [i=first:3] in using (column(i+1)):xtic(1) title names[i] lc rgb colors[i]
