# bench/plots/scaling.gp: the hit-scaling chart (cached-hit tps against
# clients). Input: scaling.dat of bench/scenarios/scaling.sh;
# gnuplot -e "in='...'; out='...'; sfc='yes|no'; quick='yes|no'" scaling.gp
# (quick = yes: only sfcache's line was measured, when it has a cache).
set terminal pngcairo size 800,450 font "DejaVu Sans,10"
set output out
set title "Hit throughput of a warm cached 50 ms query (medians)".((sfc eq "yes") ? "" : "\nsfcache: no result cache yet")
set xlabel "clients"
set ylabel "transactions/s"
set logscale x 2
set xtics (1, 2, 4, 8, 16, 64)
set yrange [0:*]
set grid
set key bottom right
set xrange [0.8:80]
array names[3] = ["sfcache (cached)", "pgpool-II (cached)", "SELECT 1, plain (protocol floor)"]
array colors[3] = ["#2a9d8f", "#e76f51", "#8d99ae"]
array dashes[3] = [1, 1, 2]
first = (sfc eq "yes") ? 1 : 2
last = (quick eq "yes") ? ((sfc eq "yes") ? 1 : 2) : 3
plot for [i=first:last] in using 1:(column(i+1)) with linespoints lw 2 pt 7 dt dashes[i] lc rgb colors[i] title names[i]
