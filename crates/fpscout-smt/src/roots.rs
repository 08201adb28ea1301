//! Univariate polynomials over exact rationals and their real roots (Sturm sequences, bisection).

use rug::{Integer, Rational};
use std::cmp::Ordering;

/// A polynomial in one variable with rational coefficients, lowest degree first, without
/// trailing zero coefficients (the zero polynomial has none).
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct Poly {
    coeffs: Vec<Rational>,
}

/// One real root of a polynomial: either known exactly (`lo == hi`), or the only root in
/// the open interval `(lo, hi)`, at whose end `hi` the polynomial is not zero.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct RootInterval {
    pub lo: Rational,
    pub hi: Rational,
}

impl RootInterval {
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
        let (mut a, mut b) = (self.clone(), other.clone());
        while !b.is_zero() {
            let Some((_, r)) = a.div_rem(&b) else { break };
            // Monic remainders keep coefficient growth in check.
            a = b;
            b = r.monic();
        }
        a.monic()
    }

    /// The product of the distinct irreducible factors: the same roots, each simple.
    pub fn square_free(&self) -> Poly {
        if self.degree().unwrap_or(0) == 0 {
            return self.monic();
        }
        let g = self.gcd(&self.derivative());
        match self.div_rem(&g) {
            Some((q, _)) => q.monic(),
            None => self.monic(),
        }
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
        self.eval(x).cmp0()
    }

    /// p, p', then the negated remainders until a constant (or zero remainder).
    pub fn sturm_sequence(&self) -> Vec<Poly> {
        let mut seq = vec![self.clone()];
        if self.degree().unwrap_or(0) == 0 {
            return seq;
        }
        seq.push(self.derivative());
        loop {
            let n = seq.len();
            let Some((_, r)) = seq[n - 2].div_rem(&seq[n - 1]) else {
                break;
            };
            if r.is_zero() {
                break;
            }
            // A positive scale keeps the signs the sequence is about.
            let r = r.neg();
            let r = match r.leading() {
                Some(l) => r.scale(&Rational::from(l.recip_ref()).abs()),
                None => r,
            };
            seq.push(r);
        }
        seq
    }

    /// A power of two strictly above the magnitude of every real root (Cauchy's bound).
    pub fn root_bound(&self) -> Rational {
        let Some(lead) = self.leading() else {
            return Rational::from(1);
        };
        let mut max = Rational::new();
        for c in &self.coeffs[..self.coeffs.len() - 1] {
            let r = Rational::from(c / lead).abs();
            if r > max {
                max = r;
            }
        }
        let bound = max + 1u32;
        let mut p = Rational::from(1);
        while p <= bound {
            p *= 2u32;
        }
        p
    }

    /// The distinct real roots, in increasing order, each in its own interval; the
    /// intervals are disjoint. The zero polynomial has no isolated roots (None).
    pub fn isolate_roots(&self) -> Option<Vec<RootInterval>> {
        if self.is_zero() {
            return None;
        }
        let p = self.square_free();
        if p.degree() == Some(0) {
            return Some(Vec::new());
        }
        let seq = p.sturm_sequence();
        let b = p.root_bound();
        let lo = Rational::from(-&b);
        let total = sign_variations(&seq, &lo) - sign_variations(&seq, &b);
        let mut roots = Vec::new();
        // Intervals (lo, hi] with their root counts, smallest first.
        let mut stack = vec![(lo, b, total)];
        while let Some((lo, hi, count)) = stack.pop() {
            match count {
                0 => {}
                1 => {
                    if p.sign_at(&hi) == Ordering::Equal {
                        roots.push(RootInterval { lo: hi.clone(), hi });
                    } else {
                        roots.push(RootInterval { lo, hi });
                    }
                }
                _ => {
                    let mid = Rational::from(&lo + &hi) / 2u32;
                    let v_mid = sign_variations(&seq, &mid);
                    let left = sign_variations(&seq, &lo) - v_mid;
                    let right = v_mid - sign_variations(&seq, &hi);
                    // Pushed right first so the left half is isolated first.
                    stack.push((mid.clone(), hi, right));
                    stack.push((lo, mid, left));
                }
            }
        }
        roots.sort_by(|a, b| a.lo.cmp(&b.lo));
        Some(roots)
    }

    /// Bisects a root's interval (from [`Poly::isolate_roots`] of this polynomial or of
    /// its square-free part) until it is at most `width` wide or the root is found exactly.
    pub fn refine(&self, root: &RootInterval, width: &Rational) -> RootInterval {
        self.square_free()
            .refine_square_free(root, |r| r.width() <= *width, usize::MAX)
    }

    /// Bisects a root's interval of this square-free polynomial until `done` holds, the
    /// root is found exactly, or after `max_steps` bisections.
    pub fn refine_square_free(
        &self,
        root: &RootInterval,
        mut done: impl FnMut(&RootInterval) -> bool,
        max_steps: usize,
    ) -> RootInterval {
        let mut r = root.clone();
        let hi_sign = self.sign_at(&r.hi);
        for _ in 0..max_steps {
            if r.is_exact() || done(&r) {
                break;
            }
            let mid = Rational::from(&r.lo + &r.hi) / 2u32;
            match self.sign_at(&mid) {
                Ordering::Equal => {
                    return RootInterval {
                        lo: mid.clone(),
                        hi: mid,
                    }
                }
                // The only root is simple, so the sign flips exactly there.
                s if s == hi_sign => r.hi = mid,
                _ => r.lo = mid,
            }
        }
        r
    }
}

/// Sign changes along a Sturm sequence at `x`, zeros skipped.
fn sign_variations(seq: &[Poly], x: &Rational) -> i64 {
    let mut last = Ordering::Equal;
    let mut changes = 0;
    for p in seq {
        let s = p.sign_at(x);
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
