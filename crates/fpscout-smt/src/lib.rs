//! placeholder
#[cfg(test)]
mod tests {
    #[test]
    fn z3_links() {
        let x = z3::ast::Real::new_const("x");
        let s = z3::Solver::new();
        s.assert(&x.gt(&z3::ast::Real::from_rational_str("1", "2").unwrap()));
        assert_eq!(s.check(), z3::SatResult::Sat);
    }
}
