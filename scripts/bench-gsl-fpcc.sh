#!/usr/bin/env bash
#! ATOMU/FPCC's 88 GSL special functions under `error --reference`: in how many does fpscout find a bug-level input (relative error above 1e-3 against mpmath, input, result and exact value finite: FPCC's definition)?
#
# Usage: scripts/bench-gsl-fpcc.sh [FILTER_REGEX]
#   TIME_PER_FUNCTION=15   --time-budget of each error run
#   FPSCOUT                the binary (default: $CARGO_TARGET_DIR/release/fpscout, built when missing)
#   FPSCOUT_BENCH_DIR      cache (default /var/tmp/fpscout-bench): GSL's bitcode from
#                          scripts/gsl-bitcode.sh (Debian source package `gsl`, fetched at
#                          run time), results in $cache/$OUT/NAME.{json,err,run}
#   OUT=fpcc               the results' directory under the cache
#   RANGE=LO:HI            an experiment, not the benchmark: this --range for the parameter
#                          of every function run (x, k or s) instead of the table's ranges
#
# The 88 functions are those of ATOMU's benchmark (Yi et al., POPL 2020,
# github.com/FP-Analysis/atomic-condition) that have an mpmath oracle, the set FPCC
# also reports on. Issue #32's goal: a bug-level input in at least 44 of them (MGDE's
# count; FPCC's is 29). One run a function, sequentially (one core):
#   fpscout error specfunc.bc -f NAME --setup-call gsl_set_error_handler_off
#       --time-budget T --json [--reference EXPR] [--range R ...]
# with --reference where the function is an exact FPCore expression over FPCore's and
# MPFR's operators (else the run compares with the shadow, the same algorithm at 256
# bits, and cannot see an algorithm's own error). Then scripts/fpcc-table.py re-scores
# every input each run reported (its worst, worst finite, and every bug-level input)
# against mpmath, precision raised until stable, and counts a function when one input
# meets FPCC's definition. Needs python3 with mpmath (pip install mpmath). Results of
# the functions run are replaced; the table always lists all 88 (functions not run yet
# are shown as such). Progress lines go to stderr; the table to stdout and
# $cache/$OUT/table.txt.
#
# Ranges only where the domain is a bounded interval (ellint: |k| < 1): never a region
# chosen because a bug is known there. Half-line domains (log, lnsinh, Y0, K0...) get no
# --range: a range's random inputs are uniform in value (x=0:1e308 would draw almost
# only numbers near 1e307), while without one they are uniform in exponent, and a range
# as wide as DBL_MAX makes fpscout panic (rand's Uniform overflows). References that
# need wide exponents are written in overflow-free forms (lnsinh x = x +
# log(-expm1(-2x)/2), the scaled functions with exp(-2|x|)), so the reference is finite
# wherever the function is. fpscout evaluates MPFR's Ai only
# for |x| <= 256 ("not intended to be used with large arguments"): beyond, it is an
# underflowed zero for positive x, which the scaled form multiplies back into range
# (a false exact value 0 before fpscout 5e71e94), and not evaluated for negative x. The
# Ai references are NaN beyond 256 in magnitude: such inputs are searched but not
# measured against the mathematics.
set -euo pipefail

here="$(cd "$(dirname "$0")/.." && pwd)"
filter="${1:-.}"
[ $# -le 1 ] || { echo "usage: scripts/bench-gsl-fpcc.sh [FILTER_REGEX]" >&2; exit 2; }
t="${TIME_PER_FUNCTION:-15}"
target_dir="${CARGO_TARGET_DIR:-$here/target}"
fpscout="${FPSCOUT:-$target_dir/release/fpscout}"
[[ "$t" =~ ^[0-9]+(\.[0-9]+)?$ ]] || { echo "TIME_PER_FUNCTION must be seconds, not '$t'" >&2; exit 2; }
python3 -c "import mpmath" 2>/dev/null || { echo "bench-gsl-fpcc: python3's mpmath is needed (pip install mpmath)" >&2; exit 2; }
rc=0; grep -qE "$filter" </dev/null 2>/dev/null || rc=$?
[ "$rc" != 2 ] || { echo "bench-gsl-fpcc: bad FILTER_REGEX '$filter' (grep -E syntax)" >&2; exit 2; }
if [ ! -x "$fpscout" ]; then
  (cd "$here" && cargo build --release -p fpscout >&2)
fi
bc="$("$here/scripts/gsl-bitcode.sh")"
cache="${FPSCOUT_BENCH_DIR:-/var/tmp/fpscout-bench}/${OUT:-fpcc}"
range_all="${RANGE:-}"
[ -z "$range_all" ] || [[ "$range_all" =~ ^[^:]+:[^:]+$ ]] || { echo "RANGE must be LO:HI, not '$range_all'" >&2; exit 2; }
mkdir -p "$cache"

# NAME | fpscout reference (FPCore over GSL's parameter names; empty: shadow only) |
# mpmath expression (Python over mpmath's names and the parameter; NaN at poles, where
# mpmath would raise or spend minutes: psi at the non-positive integers, which every
# double below -2^52 is) | ranges
# GSL's parameter is x, except k (ellint) and s (zeta, zetam1, eta); the airy and ellint
# functions' gsl_mode_t is left at 0, GSL_PREC_DOUBLE (FPCC's choice too).
table="gsl_sf_airy_Ai|(if (< (fabs x) 256) (ai x) NAN)|airyai(x)|
gsl_sf_airy_Bi||airybi(x)|
gsl_sf_airy_Ai_scaled|(if (< (fabs x) 256) (if (> x 0) (* (ai x) (exp (* (/ 2 3) (* x (sqrt x))))) (ai x)) NAN)|airyai(x)*exp(2*x*sqrt(x)/3) if x > 0 else airyai(x)|
gsl_sf_airy_Bi_scaled||airybi(x)*exp(-2*x*sqrt(x)/3) if x > 0 else airybi(x)|
gsl_sf_airy_Ai_deriv||airyai(x, derivative=1)|
gsl_sf_airy_Bi_deriv||airybi(x, derivative=1)|
gsl_sf_airy_Ai_deriv_scaled||airyai(x, derivative=1)*exp(2*x*sqrt(x)/3) if x > 0 else airyai(x, derivative=1)|
gsl_sf_airy_Bi_deriv_scaled||airybi(x, derivative=1)*exp(-2*x*sqrt(x)/3) if x > 0 else airybi(x, derivative=1)|
gsl_sf_bessel_J0|(j0 x)|besselj(0, x)|
gsl_sf_bessel_J1|(j1 x)|besselj(1, x)|
gsl_sf_bessel_Y0|(y0 x)|bessely(0, x)|
gsl_sf_bessel_Y1|(y1 x)|bessely(1, x)|
gsl_sf_bessel_I0||besseli(0, x)|
gsl_sf_bessel_I1||besseli(1, x)|
gsl_sf_bessel_I0_scaled||besseli(0, x)*exp(-abs(x))|
gsl_sf_bessel_I1_scaled||besseli(1, x)*exp(-abs(x))|
gsl_sf_bessel_K0||besselk(0, x)|
gsl_sf_bessel_K1||besselk(1, x)|
gsl_sf_bessel_K0_scaled||besselk(0, x)*exp(x)|
gsl_sf_bessel_K1_scaled||besselk(1, x)*exp(x)|
gsl_sf_bessel_j0|(/ (sin x) x)|sin(x)/x|
gsl_sf_bessel_j1|(/ (- (/ (sin x) x) (cos x)) x)|(sin(x)/x - cos(x))/x|
gsl_sf_bessel_j2|(/ (- (* (- (/ 3 (* x x)) 1) (sin x)) (/ (* 3 (cos x)) x)) x)|((3/(x*x) - 1)*sin(x) - 3*cos(x)/x)/x|
gsl_sf_bessel_y0|(/ (- (cos x)) x)|-cos(x)/x|
gsl_sf_bessel_y1|(/ (- (+ (/ (cos x) x) (sin x))) x)|-(cos(x)/x + sin(x))/x|
gsl_sf_bessel_y2|(- (* (+ (/ -3 (* x (* x x))) (/ 1 x)) (cos x)) (* (/ 3 (* x x)) (sin x)))|(-3/x**3 + 1/x)*cos(x) - 3*sin(x)/x**2|
gsl_sf_bessel_i0_scaled|(let ((a (fabs x))) (/ (- (expm1 (* -2 a))) (* 2 a)))|sqrt(pi/(2*abs(x)))*besseli(0.5, abs(x))*exp(-abs(x))|
gsl_sf_bessel_i1_scaled|(let ((a (fabs x))) (/ (+ (* a (+ 1 (exp (* -2 a)))) (expm1 (* -2 a))) (* 2 (* a x))))|sign(x)*sqrt(pi/(2*abs(x)))*besseli(1.5, abs(x))*exp(-abs(x))|
gsl_sf_bessel_i2_scaled|(let ((a (fabs x))) (/ (- (* (+ (/ 3 (* a a)) 1) (/ (- (expm1 (* -2 a))) 2)) (/ (* 3 (/ (+ 1 (exp (* -2 a))) 2)) a)) a))|sqrt(pi/(2*abs(x)))*besseli(2.5, abs(x))*exp(-abs(x))|
gsl_sf_bessel_k0_scaled|(/ PI (* 2 x))|sqrt(pi/(2*x))*besselk(0.5, x)*exp(x)|
gsl_sf_bessel_k1_scaled|(* (/ PI (* 2 x)) (+ 1 (/ 1 x)))|sqrt(pi/(2*x))*besselk(1.5, x)*exp(x)|
gsl_sf_bessel_k2_scaled|(* (/ PI (* 2 x)) (+ 1 (+ (/ 3 x) (/ 3 (* x x)))))|sqrt(pi/(2*x))*besselk(2.5, x)*exp(x)|
gsl_sf_clausen||clsin(2, x)|
gsl_sf_dilog|(li2 x)|re(polylog(2, x))|
gsl_sf_ellint_Kcomp||ellipk(k*k)|k=-1:1
gsl_sf_ellint_Ecomp||ellipe(k*k)|k=-1:1
gsl_sf_erfc|(erfc x)|erfc(x)|
gsl_sf_log_erfc|(log (erfc x))|log(erfc(x))|
gsl_sf_erf|(erf x)|erf(x)|
gsl_sf_erf_Z|(/ (exp (/ (* x x) -2)) (sqrt (* 2 PI)))|npdf(x)|
gsl_sf_erf_Q|(/ (erfc (/ x (sqrt 2))) 2)|erfc(x/sqrt(2))/2|
gsl_sf_hazard|(/ (* 2 (/ (exp (/ (* x x) -2)) (sqrt (* 2 PI)))) (erfc (/ x (sqrt 2))))|npdf(x)/(erfc(x/sqrt(2))/2)|
gsl_sf_exp|(exp x)|exp(x)|
gsl_sf_expm1|(expm1 x)|expm1(x)|
gsl_sf_exprel|(/ (expm1 x) x)|expm1(x)/x|
gsl_sf_exprel_2|(/ (* 2 (- (expm1 x) x)) (* x x))|2*(expm1(x) - x)/(x*x)|
gsl_sf_expint_E1|(- (eint (- x)))|re(expint(1, x))|
gsl_sf_expint_E2|(+ (exp (- x)) (* x (eint (- x))))|re(expint(2, x))|
gsl_sf_expint_E1_scaled|(* (exp x) (- (eint (- x))))|re(expint(1, x))*exp(x)|
gsl_sf_expint_E2_scaled|(+ 1 (* x (* (exp x) (eint (- x)))))|re(expint(2, x))*exp(x)|
gsl_sf_expint_Ei|(eint x)|ei(x)|
gsl_sf_expint_Ei_scaled|(* (exp (- x)) (eint x))|ei(x)*exp(-x)|
gsl_sf_Shi|(/ (- (eint x) (eint (- x))) 2)|shi(x)|
gsl_sf_Chi|(/ (+ (eint x) (eint (- x))) 2)|re(chi(x))|
gsl_sf_Si||si(x)|
gsl_sf_Ci||re(ci(x))|
gsl_sf_fermi_dirac_m1|(/ 1 (+ 1 (exp (- x))))|-polylog(0, -exp(x))|
gsl_sf_fermi_dirac_0|(log1p (exp x))|-polylog(1, -exp(x))|
gsl_sf_fermi_dirac_1|(- (li2 (- (exp x))))|-polylog(2, -exp(x))|
gsl_sf_fermi_dirac_2||-polylog(3, -exp(x))|
gsl_sf_fermi_dirac_mhalf||-polylog(0.5, -exp(x))|
gsl_sf_fermi_dirac_half||-polylog(1.5, -exp(x))|
gsl_sf_fermi_dirac_3half||-polylog(2.5, -exp(x))|
gsl_sf_lngamma|(lgamma x)|log(abs(gamma(x)))|
gsl_sf_gamma|(tgamma x)|gamma(x)|
gsl_sf_gammainv|(/ 1 (tgamma x))|rgamma(x)|
gsl_sf_lambert_W0||lambertw(x)|
gsl_sf_lambert_Wm1||lambertw(x, -1) if x < 0 else lambertw(x)|
gsl_sf_legendre_P1|x|legendre(1, x)|
gsl_sf_legendre_P2|(/ (- (* 3 (* x x)) 1) 2)|legendre(2, x)|
gsl_sf_legendre_P3|(/ (- (* 5 (* x (* x x))) (* 3 x)) 2)|legendre(3, x)|
gsl_sf_legendre_Q0|(/ (log (fabs (/ (+ 1 x) (- 1 x)))) 2)|legenq(0, 0, x) if abs(x) < 1 else legenq(0, 0, x, type=3)|
gsl_sf_legendre_Q1|(- (* (/ x 2) (log (fabs (/ (+ 1 x) (- 1 x))))) 1)|legenq(1, 0, x) if abs(x) < 1 else legenq(1, 0, x, type=3)|
gsl_sf_log|(log x)|log(x)|
gsl_sf_log_abs|(log (fabs x))|log(abs(x))|
gsl_sf_log_1plusx|(log1p x)|log1p(x)|
gsl_sf_log_1plusx_mx|(- (log1p x) x)|log1p(x) - x|
gsl_sf_psi|(digamma x)|nan if x <= 0 and x == floor(x) else digamma(x)|
gsl_sf_psi_1||nan if x <= 0 and x == floor(x) else psi(1, x)|
gsl_sf_synchrotron_2||x*besselk(mpf(2)/3, x)|
gsl_sf_sin|(sin x)|sin(x)|
gsl_sf_cos|(cos x)|cos(x)|
gsl_sf_sinc|(/ (sin (* PI x)) (* PI x))|sincpi(x)|
gsl_sf_lnsinh|(+ x (log (/ (- (expm1 (* -2 x))) 2)))|log(sinh(x))|
gsl_sf_lncosh|(let ((a (fabs x))) (+ a (log (/ (+ 1 (exp (* -2 a))) 2))))|log(cosh(x))|
gsl_sf_zeta|(zeta s)|zeta(s)|
gsl_sf_zetam1|(- (zeta s) 1)|zeta(s) - 1|
gsl_sf_eta|(* (- 1 (pow 2 (- 1 s))) (zeta s))|altzeta(s)|"

[ "$(printf '%s\n' "$table" | wc -l)" = 88 ] || { echo "bench-gsl-fpcc: the table should have 88 rows" >&2; exit 2; }
# The whole list, every time: the table script shows the functions not run (yet).
printf '%s\n' "$table" | while IFS='|' read -r name ref mp _; do
  printf '%s|%s|%s\n' "$name" "$([ -n "$ref" ] && echo fpscout || echo shadow)" "$mp"
done >"$cache/functions.txt"

ran=0
while IFS='|' read -r name ref mp ranges; do
  [[ "$name" =~ $filter ]] || continue
  args=(error "$bc" -f "$name" --setup-call gsl_set_error_handler_off --time-budget "$t" --json)
  [ -z "$ref" ] || args+=(--reference "$ref")
  if [ -n "$range_all" ]; then
    case "$name" in
      *ellint*) param=k ;;
      *zeta*|*_eta) param=s ;;
      *) param=x ;;
    esac
    ranges="$param=$range_all"
  fi
  for r in $ranges; do args+=(--range "$r"); done
  start=$(date +%s.%N)
  rc=0
  "$fpscout" "${args[@]}" >"$cache/$name.json" 2>"$cache/$name.err" </dev/null || rc=$?
  secs=$(awk -v s="$start" -v e="$(date +%s.%N)" 'BEGIN { printf "%.1f", e - s }')
  printf 'exit=%s seconds=%s reference=%s ranges=%s\n' "$rc" "$secs" "${ref:-shadow}" "${ranges:--}" >"$cache/$name.run"
  ran=$((ran + 1))
  echo "bench-gsl-fpcc: $name: exit $rc, ${secs} s" >&2
done < <(printf '%s\n' "$table")
[ "$ran" -gt 0 ] || { echo "bench-gsl-fpcc: no function matches '$filter'" >&2; exit 2; }

python3 "$here/scripts/fpcc-table.py" "$cache" | tee "$cache/table.txt"
