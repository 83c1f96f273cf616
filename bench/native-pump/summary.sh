#!/bin/sh
# Medians and spreads of run.sh's lines (stdin): per side wall ms, CPU s, peak MB; and each
# side's wall ratio to the script run just before it (pairwise, as farm-bench pairs).
awk '
  { split($2, a, "="); split($3, b, "="); split($4, c, "="); side = $1; n[side]++
    ms[side, n[side]] = a[2]; cpu[side, n[side]] = b[2]; pk[side, n[side]] = c[2] / 1024
    if (side == "script") last = a[2]; else { r[side, n[side]] = a[2] / last } }
  function med(arr, s, k,   i, j, t, v) { for (i = 1; i <= k; i++) v[i] = arr[s, i]
    for (i = 1; i <= k; i++) for (j = i + 1; j <= k; j++) if (v[j] < v[i]) { t = v[i]; v[i] = v[j]; v[j] = t }
    return sprintf("%.3g (%.3g-%.3g)", (k % 2) ? v[(k + 1) / 2] : (v[k / 2] + v[k / 2 + 1]) / 2, v[1], v[k]) }
  END { for (s in n) { k = n[s]; line = s ": ms " med(ms, s, k) ", cpu s " med(cpu, s, k) ", peak MB " med(pk, s, k)
    if (s != "script") line = line ", ratio to script " med(r, s, k); print line } }'
