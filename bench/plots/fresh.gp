# bench/plots/fresh.gp: the freshness chart (stale reads in % per
# configuration, at 2 and 50 commits/s). Input: fresh.dat of
# bench/scenarios/fresh.sh; gnuplot -e "in='...'; out='...'; sfc='yes|no'" fresh.gp
set terminal pngcairo size 1100,450 font "DejaVu Sans,10"
set output out
set title "Freshness: stale reads while a writer commits (medians)".((sfc eq "yes") ? "" : "\nsfcache: no result cache yet")
set style data histogram
set style histogram clustered gap 1
set style fill solid 0.85 border -1
set boxwidth 0.9
set grid ytics
set yrange [0:110]
set ylabel "stale reads (% of reads)"
set key top left
set xtics font ",10"
plot in using 2:xtic(1) title "writer at 2 commits/s" lc rgb "#457b9d", \
     '' using 3 title "writer at 50 commits/s" lc rgb "#e63946", \
     '' using 0:($2 > $3 ? $2 : $3):(sprintf("%.1f%% / %.1f%%", $2, $3)) with labels offset 0,1 notitle
