# bench/plots/herd.gp: the herd chart (executions and time until the last
# client had its rows, per N and target). Input: herd.dat of
# bench/scenarios/herd.sh; gnuplot -e "in='...'; out='...'; sfc='yes|no'" herd.gp
# (sfc = no: sfcache has no result cache yet, its bars are left out).
set terminal pngcairo size 1000,420 font "DejaVu Sans,10"
set output out
set multiplot layout 1,2 title "Herd: N identical cold 50 ms queries released at one barrier (medians)"
set style data histogram
set style histogram clustered gap 1
set style fill solid 0.85 border -1
set boxwidth 0.9
set grid ytics
set key top left
set xlabel "clients (N)"
array names[3] = ["sfcache", "plain PostgreSQL", "pgpool-II"]
array colors[3] = ["#2a9d8f", "#8d99ae", "#e76f51"]
first = (sfc eq "yes") ? 1 : 2
note = (sfc eq "yes") ? "" : "\n(sfcache: no result cache yet)"
set title "executions (seq scans of its table)".note
set logscale y
set yrange [0.8:*]
plot for [i=first:3] in using (column(i+1)):xtic(1) title names[i] lc rgb colors[i]
unset logscale y
set yrange [0:*]
set title "time until the last client had its rows (ms)".note
plot for [i=first:3] in using (column(i+4)):xtic(1) title names[i] lc rgb colors[i]
unset multiplot
