//! Sets of queries a mode solves by index: their formulas are built and kept here, so no
//! caller outside this crate holds a Z3 term.

use crate::collect::{any_loose, differential_query, plain_query, Query, QueryPool};
use crate::fallback::{FallbackInput, FallbackOptions, FallbackPool};
use crate::symbolic::Dependent;
use fpscout_ir::ExceptionKind;
use std::collections::{HashMap, HashSet};
use std::time::Instant;
use z3::ast::Bool;

/// Formulas to solve, each a whole query (input constraints included).
#[derive(Default)]
pub struct QuerySet {
    formulas: Vec<Bool>,
}

impl QuerySet {
    /// The plain queries: each condition under the input constraints.
    pub fn plain(constraints: &[Bool], queries: &[&Query]) -> QuerySet {
        QuerySet {
            formulas: queries
                .iter()
                .map(|q| plain_query(constraints, q))
                .collect(),
        }
    }

    /// Differential queries for the conditions of `mine` against every operation of
    /// `theirs` (see [`differential_query`]), one per distinct formula of `mine`, built
    /// until `until`; with the index in `mine` of each query's condition.
    pub fn differential(
        constraints: &[Bool],
        mine: &[Query],
        theirs: &[Query],
        until: Option<Instant>,
    ) -> (QuerySet, Vec<usize>) {
        let mut theirs_any: HashMap<ExceptionKind, Bool> = HashMap::new();
        let mut seen_formulas = HashSet::new();
        let mut set = QuerySet::default();
        let mut origins = Vec::new();
        for (i, q) in mine.iter().enumerate() {
            if until.is_some_and(|d| Instant::now() >= d) {
                break;
            }
            if !seen_formulas.insert(q.formula.clone()) {
                continue;
            }
            let others = theirs_any
                .entry(q.kind)
                .or_insert_with(|| any_loose(theirs, q.kind));
            set.formulas
                .push(differential_query(constraints, q, others));
            origins.push(i);
        }
        (set, origins)
    }

    /// Isolated queries for `targets`: each condition with a margin while no condition of
    /// another operation among `all` comes near raising its kind (`any_kind`: any
    /// exception at all), so that an exception earlier on the path does not stand in for
    /// it; built until `until`; with the index in `targets` of each query.
    pub fn isolated(
        constraints: &[Bool],
        targets: &[&Query],
        all: &[Query],
        any_kind: bool,
        until: Option<Instant>,
    ) -> (QuerySet, Vec<usize>) {
        let mut set = QuerySet::default();
        let mut which = Vec::new();
        let mut others_of: HashMap<(fpscout_ir::FpOpId, ExceptionKind), Bool> = HashMap::new();
        // With any kind, the other operations' condition does not depend on the kind.
        for (i, q) in targets.iter().enumerate() {
            if until.is_some_and(|d| Instant::now() >= d) {
                break;
            }
            let key = (
                q.op,
                if any_kind {
                    ExceptionKind::Inexact
                } else {
                    q.kind
                },
            );
            let others = others_of.entry(key).or_insert_with(|| {
                let rest: Vec<Query> = all.iter().filter(|o| o.op != q.op).cloned().collect();
                if any_kind {
                    let each: Vec<Bool> = [
                        ExceptionKind::Invalid,
                        ExceptionKind::DivByZero,
                        ExceptionKind::Overflow,
                        ExceptionKind::Underflow,
                    ]
                    .into_iter()
                    .map(|k| any_loose(&rest, k))
                    .collect();
                    Bool::or(&each)
                } else {
                    any_loose(&rest, q.kind)
                }
            });
            set.formulas
                .push(differential_query(constraints, q, others));
            which.push(i);
        }
        (set, which)
    }

    /// Appends the queries of another set.
    pub fn extend(&mut self, other: QuerySet) {
        self.formulas.extend(other.formulas);
    }

    pub fn len(&self) -> usize {
        self.formulas.len()
    }

    pub fn is_empty(&self) -> bool {
        self.formulas.is_empty()
    }

    /// Ariadne's fallback solver on these queries (see [`FallbackPool`]).
    pub fn fallback_pool<'a>(
        &'a self,
        inputs: &[FallbackInput],
        dependents: &'a [Dependent],
        opts: FallbackOptions,
    ) -> FallbackPool<'a> {
        FallbackPool::new(&self.formulas, inputs, dependents, opts)
    }

    /// Solver workers for these queries (see [`QueryPool`]); `inputs` name the values a
    /// model gives back.
    pub fn pool(&self, inputs: &[String], timeout_ms: u32, jobs: usize) -> QueryPool<'_> {
        QueryPool::new(&self.formulas, inputs, timeout_ms, jobs)
    }
}
