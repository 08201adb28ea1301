//! Univariate polynomials over exact rationals and their real roots (Descartes' rule of
//! signs with bisection on integer coefficients), every long computation under a deadline.

use rug::{Integer, Rational};
use std::cmp::Ordering;
use std::time::Instant;

/// A polynomial in one variable with rational coefficients, lowest degree first, without
/// trailing zero coefficients (the zero polynomial has none).
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct Poly {
    coeffs: Vec<Rational>,
}

/// One real root of a polynomial: either known exactly (`lo == hi`), or the only root in
/// the open interval `(lo, hi)` (an end may be another root, itself found exactly).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct RootInterval {
    pub lo: Rational,
    pub hi: Rational,
}

impl RootInterval {
    pub fn exact(root: Rational) -> RootInterval {
        RootInterval {
            lo: root.clone(),
            hi: root,
        }
    }

    pub fn is_exact(&self) -> bool {
        self.lo == self.hi
    }

    pub fn width(&self) -> Rational {
        Rational::from(&self.hi - &self.lo)
    }
}

impl Poly {
    pub fn zero() -> Poly {
        Poly { coeffs: Vec::new() }
    }

    pub fn constant(c: Rational) -> Poly {
        Poly::from_coeffs(vec![c])
    }

    /// The polynomial `x`.
    pub fn x() -> Poly {
        Poly::from_coeffs(vec![Rational::new(), Rational::from(1)])
    }

    /// From coefficients, lowest degree first.
    pub fn from_coeffs(mut coeffs: Vec<Rational>) -> Poly {
        while coeffs.last().is_some_and(|c| c.cmp0() == Ordering::Equal) {
            coeffs.pop();
        }
        Poly { coeffs }
    }

    /// `x - root`.
    pub fn linear_factor(root: &Rational) -> Poly {
        Poly::from_coeffs(vec![Rational::from(-root), Rational::from(1)])
    }

    pub fn coeffs(&self) -> &[Rational] {
        &self.coeffs
    }

    pub fn is_zero(&self) -> bool {
        self.coeffs.is_empty()
    }

    /// None for the zero polynomial.
    pub fn degree(&self) -> Option<usize> {
        self.coeffs.len().checked_sub(1)
    }

    pub fn leading(&self) -> Option<&Rational> {
        self.coeffs.last()
    }

    /// The constant value, when the polynomial is one.
    pub fn as_constant(&self) -> Option<Rational> {
        match self.coeffs.len() {
            0 => Some(Rational::new()),
            1 => Some(self.coeffs[0].clone()),
            _ => None,
        }
    }

    pub fn add(&self, other: &Poly) -> Poly {
        let n = self.coeffs.len().max(other.coeffs.len());
        let zero = Rational::new();
        let coeffs = (0..n)
            .map(|i| {
                let a = self.coeffs.get(i).unwrap_or(&zero);
                let b = other.coeffs.get(i).unwrap_or(&zero);
                Rational::from(a + b)
            })
            .collect();
        Poly::from_coeffs(coeffs)
    }

    pub fn neg(&self) -> Poly {
        Poly {
            coeffs: self.coeffs.iter().map(|c| Rational::from(-c)).collect(),
        }
    }

    pub fn sub(&self, other: &Poly) -> Poly {
        self.add(&other.neg())
    }

    pub fn mul(&self, other: &Poly) -> Poly {
        if self.is_zero() || other.is_zero() {
            return Poly::zero();
        }
        let mut coeffs = vec![Rational::new(); self.coeffs.len() + other.coeffs.len() - 1];
        for (i, a) in self.coeffs.iter().enumerate() {
            if a.cmp0() == Ordering::Equal {
                continue;
            }
            for (j, b) in other.coeffs.iter().enumerate() {
                coeffs[i + j] += Rational::from(a * b);
            }
        }
        Poly::from_coeffs(coeffs)
    }

    pub fn scale(&self, k: &Rational) -> Poly {
        Poly::from_coeffs(self.coeffs.iter().map(|c| Rational::from(c * k)).collect())
    }

    pub fn pow(&self, n: u32) -> Poly {
        let mut out = Poly::constant(Rational::from(1));
        for _ in 0..n {
            out = out.mul(self);
        }
        out
    }

    pub fn derivative(&self) -> Poly {
        Poly::from_coeffs(
            self.coeffs
                .iter()
                .enumerate()
                .skip(1)
                .map(|(i, c)| Rational::from(c * Integer::from(i)))
                .collect(),
        )
    }

    /// Quotient and remainder of exact division; None when dividing by zero.
    pub fn div_rem(&self, divisor: &Poly) -> Option<(Poly, Poly)> {
        let d_deg = divisor.degree()?;
        let d_lead = divisor.leading()?;
        let mut rem = self.coeffs.clone();
        let Some(q_len) = (rem.len() + 1).checked_sub(d_deg + 1) else {
            return Some((Poly::zero(), self.clone()));
        };
        let mut quot = vec![Rational::new(); q_len];
        for k in (0..q_len).rev() {
            let c = Rational::from(&rem[k + d_deg] / d_lead);
            if c.cmp0() != Ordering::Equal {
                for (j, d) in divisor.coeffs.iter().enumerate() {
                    rem[k + j] -= Rational::from(&c * d);
                }
            }
            quot[k] = c;
        }
        rem.truncate(d_deg);
        Some((Poly::from_coeffs(quot), Poly::from_coeffs(rem)))
    }

    /// Scaled so the leading coefficient is 1 (zero stays zero).
    pub fn monic(&self) -> Poly {
        match self.leading() {
            Some(l) => self.scale(&Rational::from(l.recip_ref())),
            None => Poly::zero(),
        }
    }

    /// The monic greatest common divisor.
    pub fn gcd(&self, other: &Poly) -> Poly {
        let (a, b) = (
            primitive_integer(&self.coeffs),
            primitive_integer(&other.coeffs),
        );
        match primitive_gcd(&a, &b, None) {
            Ok(g) => Poly::from_integers(&g).monic(),
            // Unreachable without a deadline.
            Err(_) => Poly::constant(Rational::from(1)),
        }
    }

    /// The product of the distinct irreducible factors: the same roots, each simple (monic).
    pub fn square_free(&self) -> Poly {
        match self.square_free_until(None) {
            Ok(p) => p.monic(),
            // Unreachable without a deadline; the polynomial itself has the same roots.
            Err(_) => self.monic(),
        }
    }

    /// The square-free part with integer coefficients (primitive, same leading sign), or
    /// Err once `deadline` has passed.
    pub fn square_free_until(&self, deadline: Option<Instant>) -> Result<Poly, RootError> {
        if self.is_zero() {
            return Err(RootError::ZeroPolynomial);
        }
        let p = primitive_integer(&self.coeffs);
        Ok(Poly::from_integers(&square_free_integer(&p, deadline)?))
    }

    fn from_integers(coeffs: &[Integer]) -> Poly {
        Poly::from_coeffs(coeffs.iter().map(Rational::from).collect())
    }

    /// Exact value at `x` (Horner).
    pub fn eval(&self, x: &Rational) -> Rational {
        let mut acc = Rational::new();
        for c in self.coeffs.iter().rev() {
            acc *= x;
            acc += c;
        }
        acc
    }

    pub fn sign_at(&self, x: &Rational) -> Ordering {
        integer_sign_at(&primitive_integer(&self.coeffs), x)
    }

    /// The distinct real roots, in increasing order, each in its own interval; the
    /// intervals are disjoint. The zero polynomial has no isolated roots (None).
    pub fn isolate_roots(&self) -> Option<Vec<RootInterval>> {
        self.isolate_roots_until(None).ok()
    }

    /// [`Poly::isolate_roots`], giving up with Err once `deadline` has passed.
    pub fn isolate_roots_until(
        &self,
        deadline: Option<Instant>,
    ) -> Result<Vec<RootInterval>, RootError> {
        self.square_free_until(deadline)?
            .isolate_square_free_roots_until(deadline)
    }

    /// The real roots of this polynomial, which must be square-free (a repeated root
    /// would be bisected until the deadline): Descartes' rule of signs with bisection
    /// (Vincent–Collins–Akritas) on integer coefficients, which stay small where the
    /// remainder sequences of Sturm's method blow up.
    pub fn isolate_square_free_roots_until(
        &self,
        deadline: Option<Instant>,
    ) -> Result<Vec<RootInterval>, RootError> {
        if self.is_zero() {
            return Err(RootError::ZeroPolynomial);
        }
        let mut p = primitive_integer(&self.coeffs);
        let mut roots = Vec::new();
        if p[0].cmp0() == Ordering::Equal {
            roots.push(RootInterval::exact(Rational::new()));
            // Square-free: 0 is a simple root, and x divides it out once.
            p.remove(0);
        }
        if p.len() > 1 {
            roots.extend(positive_roots(&p, deadline)?);
            let mirrored: Vec<Integer> = p
                .iter()
                .enumerate()
                .map(|(i, c)| {
                    if i % 2 == 1 {
                        Integer::from(-c)
                    } else {
                        c.clone()
                    }
                })
                .collect();
            for r in positive_roots(&mirrored, deadline)? {
                roots.push(RootInterval {
                    lo: Rational::from(-&r.hi),
                    hi: Rational::from(-&r.lo),
                });
            }
        }
        roots.sort_by(|a, b| a.lo.cmp(&b.lo));
        Ok(roots)
    }

    /// Bisects a root's interval (from [`Poly::isolate_roots`] of this polynomial or of
    /// its square-free part) until it is at most `width` wide or the root is found exactly.
    pub fn refine(&self, root: &RootInterval, width: &Rational) -> RootInterval {
        let sf = self.square_free();
        sf.refine_square_free(root, |r| r.width() <= *width, usize::MAX, None)
            .unwrap_or_else(|_| root.clone())
    }

    /// Bisects a root's interval of this square-free polynomial until `done` holds, the
    /// root is found exactly, or after `max_steps` bisections; Err once `deadline` passed.
    pub fn refine_square_free(
        &self,
        root: &RootInterval,
        mut done: impl FnMut(&RootInterval) -> bool,
        max_steps: usize,
        deadline: Option<Instant>,
    ) -> Result<RootInterval, RootError> {
        let p = primitive_integer(&self.coeffs);
        let mut r = root.clone();
        if r.is_exact() {
            return Ok(r);
        }
        // The sign just inside the upper end: an end may itself be a root (one found
        // exactly at a bisection point), and there the derivative tells the sign.
        let hi_sign = match integer_sign_at(&p, &r.hi) {
            Ordering::Equal => integer_sign_at(&derivative_integer(&p), &r.hi).reverse(),
            s => s,
        };
        for _ in 0..max_steps {
            if r.is_exact() || done(&r) {
                break;
            }
            check(deadline)?;
            let mid = Rational::from(&r.lo + &r.hi) / 2u32;
            match integer_sign_at(&p, &mid) {
                Ordering::Equal => return Ok(RootInterval::exact(mid)),
                // The only root is simple, so the sign flips exactly there.
                s if s == hi_sign => r.hi = mid,
                _ => r.lo = mid,
            }
        }
        Ok(r)
    }
}

/// Why roots were not isolated.
#[derive(Clone, Copy, Debug, PartialEq, Eq, thiserror::Error)]
pub enum RootError {
    #[error("the zero polynomial has no isolated roots")]
    ZeroPolynomial,
    #[error("deadline passed")]
    Deadline,
}

fn check(deadline: Option<Instant>) -> Result<(), RootError> {
    match deadline {
        Some(d) if Instant::now() >= d => Err(RootError::Deadline),
        _ => Ok(()),
    }
}

/// The coefficients times the lcm of their denominators, divided by their positive gcd
/// (the signs of the values are unchanged). Empty for the zero polynomial.
fn primitive_integer(coeffs: &[Rational]) -> Vec<Integer> {
    let mut lcm = Integer::from(1);
    for c in coeffs {
        lcm.lcm_mut(c.denom());
    }
    let ints: Vec<Integer> = coeffs
        .iter()
        .map(|c| c.numer() * Integer::from(&lcm / c.denom()))
        .collect();
    primitive_part(ints)
}

/// Divided by the positive gcd of the coefficients.
fn primitive_part(mut p: Vec<Integer>) -> Vec<Integer> {
    while p.last().is_some_and(|c| c.cmp0() == Ordering::Equal) {
        p.pop();
    }
    let mut g = Integer::new();
    for c in &p {
        g.gcd_mut(c);
        if g == 1 {
            return p;
        }
    }
    if g > 1 {
        for c in &mut p {
            c.div_exact_mut(&g);
        }
    }
    p
}

fn derivative_integer(p: &[Integer]) -> Vec<Integer> {
    p.iter()
        .enumerate()
        .skip(1)
        .map(|(i, c)| Integer::from(c * i as u64))
        .collect()
}

/// The sign of the polynomial at `x = a/b` (b > 0): that of `Σ c_i a^i b^(n-i)`, in
/// integers (rational Horner would reduce fractions at every step).
fn integer_sign_at(p: &[Integer], x: &Rational) -> Ordering {
    let Some(last) = p.last() else {
        return Ordering::Equal;
    };
    let (a, b) = (x.numer(), x.denom());
    let mut acc = last.clone();
    let mut b_pow = Integer::from(1);
    for c in p.iter().rev().skip(1) {
        b_pow *= b;
        acc *= a;
        acc += Integer::from(c * &b_pow);
    }
    acc.cmp0()
}

/// The square-free part of a primitive integer polynomial (primitive, same leading sign).
fn square_free_integer(
    p: &[Integer],
    deadline: Option<Instant>,
) -> Result<Vec<Integer>, RootError> {
    if p.len() <= 2 {
        return Ok(p.to_vec());
    }
    let d = derivative_integer(p);
    // Most polynomials are square-free, which a gcd of degree 0 modulo a prime proves
    // (the gcd over Q is no larger when the prime divides neither leading coefficient).
    if MODULI
        .iter()
        .any(|&m| modular_gcd_degree(p, &d, m) == Some(0))
    {
        return Ok(p.to_vec());
    }
    let g = primitive_gcd(p, &d, deadline)?;
    if g.len() <= 1 {
        return Ok(p.to_vec());
    }
    let (quotient, _) = Poly::from_integers(p)
        .div_rem(&Poly::from_integers(&g))
        .ok_or(RootError::ZeroPolynomial)?;
    let mut q = primitive_integer(quotient.coeffs());
    // Keep the leading sign of `p` (g's leading coefficient may be negative).
    if q.last().map(Integer::cmp0) != p.last().map(Integer::cmp0) {
        q.iter_mut().for_each(|c| *c = Integer::from(-&*c));
    }
    Ok(q)
}

/// Primes below 2^63, for the square-freeness test.
const MODULI: [u64; 3] = [
    9_223_372_036_854_775_783,
    4_611_686_018_427_387_847,
    2_305_843_009_213_693_951,
];

/// The degree of gcd(a, b) over integers modulo `m`, None when `m` divides a leading
/// coefficient (the test says nothing then).
fn modular_gcd_degree(a: &[Integer], b: &[Integer], m: u64) -> Option<usize> {
    let modulus = Integer::from(m);
    let reduce = |p: &[Integer]| -> Option<Vec<u64>> {
        let v: Vec<u64> = p
            .iter()
            .map(|c| {
                let mut r = Integer::from(c % &modulus);
                if r < 0 {
                    r += &modulus;
                }
                r.to_u64().unwrap_or(0)
            })
            .collect();
        (v.last().copied().unwrap_or(0) != 0).then_some(v)
    };
    let (mut x, mut y) = (reduce(a)?, reduce(b)?);
    let mul = |p: u64, q: u64| ((u128::from(p) * u128::from(q)) % u128::from(m)) as u64;
    let inverse = |v: u64| {
        // Fermat: v^(m-2).
        let (mut base, mut e, mut acc) = (v, m - 2, 1u64);
        while e > 0 {
            if e & 1 == 1 {
                acc = mul(acc, base);
            }
            base = mul(base, base);
            e >>= 1;
        }
        acc
    };
    loop {
        while y.last() == Some(&0) {
            y.pop();
        }
        let Some(&lead) = y.last() else {
            return Some(x.len() - 1);
        };
        // x mod y, in place.
        let lead_inv = inverse(lead);
        while x.len() >= y.len() {
            let Some(&top) = x.last() else { break };
            let shift = x.len() - y.len();
            let c = mul(top, lead_inv);
            for (j, &yj) in y.iter().enumerate() {
                let t = mul(c, yj);
                x[shift + j] = (x[shift + j] + m - t) % m;
            }
            x.pop();
            while x.last() == Some(&0) {
                x.pop();
            }
        }
        std::mem::swap(&mut x, &mut y);
    }
}

/// gcd over Z of two primitive polynomials by pseudo-remainders reduced to their
/// primitive parts (coefficients stay near the size the result needs).
fn primitive_gcd(
    a: &[Integer],
    b: &[Integer],
    deadline: Option<Instant>,
) -> Result<Vec<Integer>, RootError> {
    let (mut a, mut b) = (a.to_vec(), b.to_vec());
    if a.len() < b.len() {
        std::mem::swap(&mut a, &mut b);
    }
    while !b.is_empty() {
        check(deadline)?;
        let r = primitive_part(pseudo_remainder(&a, &b, deadline)?);
        a = b;
        b = r;
    }
    Ok(primitive_part(a))
}

/// lc(b)^(deg a - deg b + 1) · a mod b (b non-zero).
fn pseudo_remainder(
    a: &[Integer],
    b: &[Integer],
    deadline: Option<Instant>,
) -> Result<Vec<Integer>, RootError> {
    let mut r = a.to_vec();
    let Some(lead) = b.last() else {
        return Ok(r);
    };
    while r.len() >= b.len() {
        check(deadline)?;
        let Some(top) = r.last().cloned() else { break };
        let shift = r.len() - b.len();
        // r = lead·r − top·x^shift·b, which cancels the top coefficient.
        for c in r.iter_mut() {
            *c *= lead;
        }
        for (j, bj) in b.iter().enumerate() {
            r[shift + j] -= Integer::from(&top * bj);
        }
        r.pop();
        while r.last().is_some_and(|c| c.cmp0() == Ordering::Equal) {
            r.pop();
        }
    }
    Ok(r)
}

/// Bit length of |c|, as a signed number for exponent arithmetic.
fn bits(c: &Integer) -> i64 {
    i64::from(c.significant_bits())
}

/// `k` with every positive root of `p` below 2^k (Fujiwara's bound, on bit lengths).
fn positive_root_bound_log2(p: &[Integer]) -> i64 {
    let n = p.len() - 1;
    let lead = bits(&p[n]);
    let mut e = i64::MIN;
    for i in 1..=n {
        let c = &p[n - i];
        if c.cmp0() == Ordering::Equal {
            continue;
        }
        // |c / lead| < 2^(bits(c) - lead + 1); its i-th root below 2^ceil(that / i).
        let num = bits(c) - lead + 1;
        let i = i as i64;
        e = e.max(-((-num).div_euclid(i)));
    }
    if e == i64::MIN {
        0
    } else {
        e + 1
    }
}

/// The positive roots of a square-free integer polynomial with p(0) ≠ 0.
fn positive_roots(
    p: &[Integer],
    deadline: Option<Instant>,
) -> Result<Vec<RootInterval>, RootError> {
    let n = p.len() - 1;
    let k = positive_root_bound_log2(p);
    // q(x) = p(2^k x): its roots in (0, 1) are p's positive roots over 2^k.
    let q: Vec<Integer> = p
        .iter()
        .enumerate()
        .map(|(i, c)| {
            let shift = if k >= 0 {
                k * i as i64
            } else {
                -k * (n - i) as i64
            };
            Integer::from(c << shift as u32)
        })
        .collect();
    // (c, j): the interval (c/2^j, (c+1)/2^j) scaled by 2^k.
    let to_rational = |c: &Integer, j: i64| -> Rational {
        let e = k - j;
        if e >= 0 {
            Rational::from(Integer::from(c << e as u32))
        } else {
            Rational::from((c.clone(), Integer::from(Integer::u_pow_u(2, (-e) as u32))))
        }
    };
    let mut roots = Vec::new();
    let mut stack = vec![(primitive_part(q), Integer::new(), 0i64)];
    while let Some((q, c, j)) = stack.pop() {
        check(deadline)?;
        match descartes_bound_on_unit_interval(&q) {
            0 => {}
            1 => roots.push(RootInterval {
                lo: to_rational(&c, j),
                hi: to_rational(&Integer::from(&c + 1u32), j),
            }),
            _ => {
                // left(x) = 2^n q(x/2) on (0, 1/2); right(x) = left(x + 1) on (1/2, 1).
                let degree = q.len() - 1;
                let left: Vec<Integer> = q
                    .iter()
                    .enumerate()
                    .map(|(i, a)| Integer::from(a << (degree - i) as u32))
                    .collect();
                let mut right = left.clone();
                taylor_shift_one(&mut right, deadline)?;
                let c2 = Integer::from(&c << 1u32);
                if right[0].cmp0() == Ordering::Equal {
                    // The midpoint is a root: exact, and divided out of the right half.
                    roots.push(RootInterval::exact(to_rational(
                        &Integer::from(&c2 + 1u32),
                        j + 1,
                    )));
                    right.remove(0);
                }
                stack.push((primitive_part(right), Integer::from(&c2 + 1u32), j + 1));
                stack.push((primitive_part(left), c2, j + 1));
            }
        }
    }
    Ok(roots)
}

/// Sign variations of (x+1)^n q(1/(x+1)): at least, and of the same parity as, the
/// number of q's roots in (0, 1); 0 or 1 is exact.
fn descartes_bound_on_unit_interval(q: &[Integer]) -> usize {
    let mut t: Vec<Integer> = q.iter().rev().cloned().collect();
    // The deadline is checked by the caller between nodes; one shift is O(n²) additions.
    let _ = taylor_shift_one(&mut t, None);
    let mut last = Ordering::Equal;
    let mut changes = 0;
    for c in &t {
        let s = c.cmp0();
        if s == Ordering::Equal {
            continue;
        }
        if last != Ordering::Equal && s != last {
            changes += 1;
        }
        last = s;
    }
    changes
}

/// p(x) ← p(x + 1), in place.
fn taylor_shift_one(p: &mut [Integer], deadline: Option<Instant>) -> Result<(), RootError> {
    let n = p.len();
    for i in 0..n.saturating_sub(1) {
        if i % 16 == 0 {
            check(deadline)?;
        }
        for j in (i..n - 1).rev() {
            let next = p[j + 1].clone();
            p[j] += next;
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    fn q(s: &str) -> Rational {
        s.parse().expect("rational literal")
    }

    fn product(factors: &[Poly]) -> Poly {
        factors
            .iter()
            .fold(Poly::constant(Rational::from(1)), |acc, f| acc.mul(f))
    }

    #[test]
    fn division_is_exact() {
        let a = product(&[
            Poly::linear_factor(&q("1/3")),
            Poly::linear_factor(&q("-2")),
            Poly::linear_factor(&q("5/7")),
        ]);
        let b = Poly::linear_factor(&q("-2"));
        let (quot, rem) = a.div_rem(&b).unwrap();
        assert!(rem.is_zero());
        assert_eq!(quot.mul(&b), a);
        // x^3 + 1 = (x^2 - x) (x + 1) + (x + 1) ... with a non-zero remainder here.
        let c = Poly::from_coeffs(vec![q("1"), q("0"), q("0"), q("1")]);
        let d = Poly::from_coeffs(vec![q("2"), q("1")]);
        let (quot, rem) = c.div_rem(&d).unwrap();
        assert_eq!(quot.mul(&d).add(&rem), c);
        assert_eq!(rem.as_constant(), Some(q("-7")));
        assert_eq!(c.div_rem(&Poly::zero()), None);
    }

    #[test]
    fn multiplicities_disappear_in_the_square_free_part() {
        // (x - 1/3)(x + 2)^2 (x^2 - 2)
        let x2m2 = Poly::from_coeffs(vec![q("-2"), q("0"), q("1")]);
        let p = product(&[
            Poly::linear_factor(&q("1/3")),
            Poly::linear_factor(&q("-2")).pow(2),
            x2m2.clone(),
        ]);
        assert_eq!(p.degree(), Some(5));
        let sf = p.square_free();
        let expected = product(&[
            Poly::linear_factor(&q("1/3")),
            Poly::linear_factor(&q("-2")),
            x2m2,
        ]);
        assert_eq!(sf, expected);
        assert_eq!(
            p.gcd(&p.derivative()),
            Poly::linear_factor(&q("-2")),
            "the repeated factor"
        );
    }

    #[test]
    fn roots_with_multiplicities_and_irrational_roots() {
        // (x - 1/3)(x + 2)^2 (x^2 - 2): distinct roots -2, -√2, 1/3, √2.
        let x2m2 = Poly::from_coeffs(vec![q("-2"), q("0"), q("1")]);
        let p = product(&[
            Poly::linear_factor(&q("1/3")),
            Poly::linear_factor(&q("-2")).pow(2),
            x2m2,
        ]);
        let roots = p.isolate_roots().unwrap();
        assert_eq!(roots.len(), 4, "{roots:?}");
        // Disjoint and increasing.
        for w in roots.windows(2) {
            assert!(w[0].hi <= w[1].lo, "{w:?}");
        }
        let contains = |r: &RootInterval, v: &Rational| {
            (r.is_exact() && r.lo == *v) || (r.lo < *v && *v < r.hi)
        };
        assert!(contains(&roots[0], &q("-2")));
        assert!(contains(&roots[2], &q("1/3")));
        // √2, refined to 10^-30, brackets it: lo² < 2 < hi².
        let tiny = q("1/1000000000000000000000000000000");
        let r = p.refine(&roots[3], &tiny);
        assert!(r.width() <= tiny);
        assert!(Rational::from(&r.lo * &r.lo) < 2 && Rational::from(&r.hi * &r.hi) > 2);
        let r = p.refine(&roots[1], &tiny);
        assert!(r.lo < 0 && Rational::from(&r.lo * &r.lo) > 2);
        assert!(Rational::from(&r.hi * &r.hi) < 2);
    }

    #[test]
    fn a_root_on_a_bisection_point_is_found_exactly() {
        // The roots lie in (-2, 2]: 0 is the first midpoint, and 1 the first midpoint
        // when refining (0, 2).
        let p = product(&[
            Poly::x(),
            Poly::linear_factor(&q("1")),
            Poly::linear_factor(&q("-1/2")),
        ]);
        let roots = p.isolate_roots().unwrap();
        assert_eq!(roots.len(), 3, "{roots:?}");
        assert_eq!(
            roots[1],
            RootInterval {
                lo: q("0"),
                hi: q("0")
            }
        );
        assert!(!roots[2].is_exact() && roots[2].lo == 0 && roots[2].hi > 1);
        let one = p.refine(&roots[2], &q("1/1000"));
        assert_eq!(
            one,
            RootInterval {
                lo: q("1"),
                hi: q("1")
            }
        );
        assert_eq!(p.sign_at(&q("1/4")), Ordering::Less);
        assert_eq!(p.sign_at(&q("2")), Ordering::Greater);
        assert_eq!(p.sign_at(&q("-1/2")), Ordering::Equal);
    }

    #[test]
    fn no_real_roots() {
        // x^4 + x^2 + 1
        let p = Poly::from_coeffs(vec![q("1"), q("0"), q("1"), q("0"), q("1")]);
        assert_eq!(p.isolate_roots(), Some(vec![]));
        assert_eq!(Poly::constant(q("3")).isolate_roots(), Some(vec![]));
        assert_eq!(Poly::zero().isolate_roots(), None);
    }

    /// Deterministic pseudo-random integers with exactly `digits` decimal digits.
    fn big_integers(count: usize, digits: usize, mut state: u64) -> Vec<Integer> {
        (0..count)
            .map(|_| {
                let mut text = String::new();
                while text.len() < digits {
                    state = state
                        .wrapping_mul(6_364_136_223_846_793_005)
                        .wrapping_add(1_442_695_040_888_963_407);
                    text.push_str(&format!("{:018}", (state >> 4) % 1_000_000_000_000_000_000));
                }
                text.truncate(digits);
                if text.starts_with('0') {
                    text.replace_range(..1, "7");
                }
                let mut n: Integer = text.parse().expect("decimal digits");
                if state & 1 == 1 {
                    n = -n;
                }
                n
            })
            .collect()
    }

    /// Every isolating interval truly holds a root of the square-free `p`: exact ones are
    /// roots, open ones show a sign change just inside their ends.
    fn assert_isolating(p: &Poly, roots: &[RootInterval]) {
        for w in roots.windows(2) {
            assert!(w[0].hi <= w[1].lo, "overlapping {w:?}");
        }
        for r in roots {
            if r.is_exact() {
                assert_eq!(p.sign_at(&r.lo), Ordering::Equal);
                continue;
            }
            let inset = r.width() / 1_000_000u32;
            let lo = Rational::from(&r.lo + &inset);
            let hi = Rational::from(&r.hi - &inset);
            let narrow = p
                .refine_square_free(r, |n| n.width() <= inset, usize::MAX, None)
                .unwrap();
            assert!(
                narrow.lo >= r.lo && narrow.hi <= r.hi,
                "{narrow:?} outside {r:?}"
            );
            let (s_lo, s_hi) = (p.sign_at(&narrow.lo), p.sign_at(&narrow.hi));
            assert!(
                narrow.is_exact()
                    || (s_lo != s_hi && s_lo != Ordering::Equal)
                    || p.sign_at(&lo) != p.sign_at(&hi),
                "no sign change in {r:?}"
            );
        }
    }

    #[test]
    fn huge_coefficients_answer_or_give_up_by_the_deadline() {
        let limit = std::time::Duration::from_secs(3);
        let slack = std::time::Duration::from_millis(500);
        let coeffs: Vec<Rational> = big_integers(61, 300, 7)
            .into_iter()
            .map(Rational::from)
            .collect();
        let p = Poly::from_coeffs(coeffs);
        assert_eq!(p.degree(), Some(60));
        let start = Instant::now();
        let found = p.isolate_roots_until(Some(start + limit));
        assert!(
            start.elapsed() < limit + slack,
            "took {:?}",
            start.elapsed()
        );
        // Square-free (proved modulo a prime) and well within reach of Descartes' rule.
        let roots = found.expect("isolated well before the deadline");
        assert_isolating(&p, &roots);
        // Square-free only after the gcd with the derivative: (p q)² (q of degree 20).
        let q = Poly::from_coeffs(
            big_integers(21, 300, 11)
                .into_iter()
                .map(Rational::from)
                .collect(),
        );
        let repeated = p.mul(&q).pow(2);
        let limit = std::time::Duration::from_secs(1);
        let start = Instant::now();
        let found = repeated.isolate_roots_until(Some(start + limit));
        assert!(
            start.elapsed() < limit + slack,
            "took {:?}",
            start.elapsed()
        );
        if let Ok(roots) = found {
            assert_isolating(&p.mul(&q), &roots);
        }
    }

    #[test]
    fn a_passed_deadline_gives_up_at_once() {
        let p = product(&[
            Poly::linear_factor(&q("1/3")),
            Poly::linear_factor(&q("1/3")),
            Poly::from_coeffs(vec![q("-2"), q("0"), q("1")]),
        ]);
        let passed = Some(Instant::now());
        assert_eq!(p.isolate_roots_until(passed), Err(RootError::Deadline));
        let sf = p.square_free();
        let roots = sf.isolate_square_free_roots_until(None).unwrap();
        assert_eq!(
            sf.refine_square_free(&roots[2], |_| false, 10, passed),
            Err(RootError::Deadline)
        );
        assert_eq!(
            Poly::zero().isolate_roots_until(None),
            Err(RootError::ZeroPolynomial)
        );
    }

    #[test]
    fn an_interval_ending_at_an_exact_root_still_refines() {
        // x (x + 1)(x - 1/2): -1 is isolated in (-B, 0), whose upper end 0 is a root.
        let p = product(&[
            Poly::x(),
            Poly::linear_factor(&q("-1")),
            Poly::linear_factor(&q("1/2")),
        ]);
        let roots = p.isolate_roots().unwrap();
        assert_eq!(roots.len(), 3, "{roots:?}");
        assert_eq!(roots[1], RootInterval::exact(q("0")));
        assert_eq!(roots[0].hi, q("0"), "{roots:?}");
        assert_eq!(
            p.refine(&roots[0], &q("1/1000")),
            RootInterval::exact(q("-1"))
        );
        let half = p.refine(&roots[2], &q("1/1000"));
        assert_eq!(half, RootInterval::exact(q("1/2")));
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(64))]
        #[test]
        fn products_of_linear_factors_give_back_their_roots(
            roots in proptest::collection::vec((-1000i64..1000, 1u64..50), 1..7),
            lead in 1i64..20,
        ) {
            let roots: Vec<Rational> = roots
                .into_iter()
                .map(|(n, d)| Rational::from((n, d)))
                .collect();
            let p = roots
                .iter()
                .fold(Poly::constant(Rational::from(lead)), |acc, r| {
                    acc.mul(&Poly::linear_factor(r))
                });
            let mut distinct = roots.clone();
            distinct.sort();
            distinct.dedup();
            let found = p.isolate_roots().unwrap();
            prop_assert_eq!(found.len(), distinct.len());
            for (r, v) in found.iter().zip(&distinct) {
                let inside = (r.is_exact() && r.lo == *v) || (r.lo < *v && *v < r.hi);
                prop_assert!(inside, "{:?} should hold {}", r, v);
                let narrow = p.refine(r, &q("1/1000000000000"));
                let inside = (narrow.is_exact() && narrow.lo == *v)
                    || (narrow.lo < *v && *v < narrow.hi);
                prop_assert!(inside, "refined {:?} should hold {}", narrow, v);
            }
        }
    }
}
