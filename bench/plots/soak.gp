# bench/plots/soak.gp: one node of a bench/soak run over time: hit ratio,
# reads/s (each a checked read: 1-10 versioned rows, or one statement of a
# dashboard page) and LMS dashboard pages/s, p50/p99 latency,
# cache memory and entries, with the faults marked (grey lines, named on
# the first panel).
# Input: nodes-<node>.csv and faults.gp of bench/soak;
# gnuplot -e "in='...'; faults='...'; out='...'; node='...'" soak.gp
set terminal pngcairo size 1100,900 font "DejaVu Sans,10" noenhanced
set output out
set datafile separator ","
set multiplot layout 4,1 title "bench/soak: ".node." (faults marked)"
set grid ytics
set key top left horizontal
set xrange [0:*]
set lmargin 10
# faults: a gnuplot file of "set arrow" (and labels) bench/soak writes
load faults
set ylabel "hit %"
set yrange [0:105]
plot in using 1:5 with lines lw 1.5 lc rgb "#2a9d8f" title "hit ratio (1 s, sfcache.stats)"
set ylabel "reads/s"
set yrange [0:*]
set y2label "pages/s"
set y2range [0:*]
set y2tics
unset label
plot in using 1:2 with lines lc rgb "#457b9d" title "checked reads/s", \
     in using 1:12 axes x1y2 with lines lc rgb "#8ab17d" title "LMS dashboard pages/s (12 reads each)", \
     in using 1:($10 > 0 ? $10 : 1/0) with points pt 7 lc rgb "#e63946" title "stale reads"
unset y2label
unset y2tics
set ylabel "ms"
set logscale y
set yrange [0.1:*]
plot in using 1:6 with lines lc rgb "#2a9d8f" title "p50", \
     in using 1:7 with lines lc rgb "#e76f51" title "p99"
unset logscale y
set yrange [0:*]
set ylabel "MB"
set y2label "entries"
set y2tics
set xlabel "seconds"
plot in using 1:($9 / 1048576) with lines lc rgb "#6a4c93" title "bytes used (MB)", \
     in using 1:8 axes x1y2 with lines lc rgb "#f4a261" title "entries"
unset multiplot
