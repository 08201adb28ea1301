/* Element-wise minimum of two double arrays: a vectorised minpd with an operand folded
   from memory, where both candidates are loads. */
void minselect(double *out, const double *a, const double *b) {
  for (int i = 0; i < 8; i++) out[i] = a[i] < b[i] ? a[i] : b[i];
}
