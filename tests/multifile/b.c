#include "scale.h"

/* -ffast-math folds (x * SCALE) / SCALE to x, so P' never overflows where P does. */
double scale_round_trip(double x) {
  return (x * SCALE) / SCALE;
}
