//! LLVM `fcmp` predicates: their truth table and their negations.

use std::cmp::Ordering;

/// Every `fcmp` predicate: `O*` are false when an operand is NaN, `U*` true.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum FcmpPredicate {
    Oeq,
    Ogt,
    Oge,
    Olt,
    Ole,
    One,
    Ord,
    Ueq,
    Ugt,
    Uge,
    Ult,
    Ule,
    Une,
    Uno,
}

impl FcmpPredicate {
    pub const ALL: [FcmpPredicate; 14] = [
        FcmpPredicate::Oeq,
        FcmpPredicate::Ogt,
        FcmpPredicate::Oge,
        FcmpPredicate::Olt,
        FcmpPredicate::Ole,
        FcmpPredicate::One,
        FcmpPredicate::Ord,
        FcmpPredicate::Ueq,
        FcmpPredicate::Ugt,
        FcmpPredicate::Uge,
        FcmpPredicate::Ult,
        FcmpPredicate::Ule,
        FcmpPredicate::Une,
        FcmpPredicate::Uno,
    ];

    /// Truth of the predicate given the order of the operands' values (`None`: unordered).
    pub fn holds(self, ordering: Option<Ordering>) -> bool {
        let Some(ordering) = ordering else {
            return self.is_unordered_true();
        };
        match self {
            FcmpPredicate::Oeq | FcmpPredicate::Ueq => ordering == Ordering::Equal,
            FcmpPredicate::Ogt | FcmpPredicate::Ugt => ordering == Ordering::Greater,
            FcmpPredicate::Oge | FcmpPredicate::Uge => ordering != Ordering::Less,
            FcmpPredicate::Olt | FcmpPredicate::Ult => ordering == Ordering::Less,
            FcmpPredicate::Ole | FcmpPredicate::Ule => ordering != Ordering::Greater,
            FcmpPredicate::One | FcmpPredicate::Une => ordering != Ordering::Equal,
            FcmpPredicate::Ord => true,
            FcmpPredicate::Uno => false,
        }
    }

    /// Whether the predicate holds when an operand is NaN.
    pub fn is_unordered_true(self) -> bool {
        matches!(
            self,
            FcmpPredicate::Ueq
                | FcmpPredicate::Ugt
                | FcmpPredicate::Uge
                | FcmpPredicate::Ult
                | FcmpPredicate::Ule
                | FcmpPredicate::Une
                | FcmpPredicate::Uno
        )
    }

    /// The predicate true exactly where this one is false.
    pub fn negated(self) -> FcmpPredicate {
        match self {
            FcmpPredicate::Oeq => FcmpPredicate::Une,
            FcmpPredicate::Ogt => FcmpPredicate::Ule,
            FcmpPredicate::Oge => FcmpPredicate::Ult,
            FcmpPredicate::Olt => FcmpPredicate::Uge,
            FcmpPredicate::Ole => FcmpPredicate::Ugt,
            FcmpPredicate::One => FcmpPredicate::Ueq,
            FcmpPredicate::Ord => FcmpPredicate::Uno,
            FcmpPredicate::Ueq => FcmpPredicate::One,
            FcmpPredicate::Ugt => FcmpPredicate::Ole,
            FcmpPredicate::Uge => FcmpPredicate::Olt,
            FcmpPredicate::Ult => FcmpPredicate::Oge,
            FcmpPredicate::Ule => FcmpPredicate::Ogt,
            FcmpPredicate::Une => FcmpPredicate::Oeq,
            FcmpPredicate::Uno => FcmpPredicate::Ord,
        }
    }

    /// Which value orders the predicate accepts between two non-NaN operands.
    pub(crate) fn accepts(self, ordering: Ordering) -> bool {
        self.holds(Some(ordering))
    }
}
