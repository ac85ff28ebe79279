/* log and exp from IEEE-754 double arithmetic alone: no libm, no fused multiply-add (the
 * build sets -ffp-contract=off), so every compiler, library and machine gives the same bits
 * for the same draw, and a delay sampled on one machine is the delay sampled on another.
 * Accurate to a few units in the last place, far below a microsecond of any delay. */
#ifndef IDEMSIM_DET_MATH_H
#define IDEMSIM_DET_MATH_H

/* Natural logarithm; -infinity at 0, NaN below 0 or for NaN. */
double det_log(double x);
/* e^x; 0 below about -745, +infinity above about 709.78. */
double det_exp(double x);

#endif
