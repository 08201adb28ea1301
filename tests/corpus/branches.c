/* Branches on float comparisons, plus ?: selects that -O3 turns into cmpsd masks / minsd / maxsd. */
double branches(double x, double y, double z) {
  double r;
  if (x < y)
    r = y - x;
  else if (x == y)
    r = x * z;
  else
    r = x / y;
  double lo = x < z ? x : z;          /* minsd pattern */
  double hi = y > z ? y : z;          /* maxsd pattern */
  double s = (r >= 1.0) ? r * 0.5 : r + 1.0;
  double t = (x != z) ? lo : hi;
  if (!(s <= 100.0))                  /* unordered-or-greater */
    s = 100.0;
  return s + t + (lo <= hi ? hi - lo : lo - hi);
}
