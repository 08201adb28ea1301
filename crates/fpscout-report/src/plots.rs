//! SVG plots of a function's findings, drawn with plotters: where in the input space each exception lives, P versus P' result classes, and the relative error along parameter sweeps.

use crate::finding::{BuildRun, Detail, Finding, Mode};
use crate::ledger::Merged;
use fpscout_ir::{FloatTy, ScalarTy, Type};
use fpscout_walk::concrete::ArgBits;
use plotters::prelude::*;

/// One drawn plot: what it shows, and the SVG text.
pub struct Plot {
    /// A stable identifier within the page (`exceptions-x`, `diff-classes`, `error-x`).
    pub id: String,
    pub title: String,
    pub svg: String,
}

const WIDTH: u32 = 640;

/// Every plot the findings of one function call for.
pub fn for_function(findings: &[&Merged]) -> Vec<Plot> {
    let mut plots = Vec::new();
    let exceptions: Vec<&Merged> = findings
        .iter()
        .copied()
        .filter(|m| m.keyed.finding.mode == Mode::Exceptions)
        .collect();
    if let Some(first) = exceptions.first() {
        for (index, param) in first.keyed.finding.params.iter().enumerate() {
            if let Type::Scalar(ScalarTy::Float(ty)) = param.ty {
                plots.extend(exception_inputs(&exceptions, index, &param.name, ty));
            }
        }
    }
    let diffs: Vec<&Finding> = findings
        .iter()
        .flat_map(|m| m.all())
        .filter(|f| f.mode == Mode::Diff)
        .collect();
    if !diffs.is_empty() {
        plots.extend(diff_classes(&diffs));
    }
    for m in findings {
        plots.extend(error_sweeps(&m.keyed.finding));
    }
    plots
}

/// Magnitudes from the smallest subnormal double (about 10^-323.3) up map to 1 and on:
/// log10|v| + 325 with v's sign, and zero to zero.
fn signed_log(v: f64) -> f64 {
    if v == 0.0 || v.is_nan() {
        0.0
    } else if v.is_infinite() {
        v.signum() * 634.0
    } else {
        v.signum() * (v.abs().log10() + 325.0)
    }
}

fn signed_log_label(s: &f64) -> String {
    if s.abs() < 1.0 {
        "0".to_string()
    } else {
        let sign = if *s < 0.0 { "-" } else { "" };
        power_label(sign, s.abs() - 325.0)
    }
}

/// `1e7` at a whole decade; between decades the value itself (`3.16e7`), so ticks a
/// fraction of a decade apart do not all read `1e7`.
fn power_label(sign: &str, exponent: f64) -> String {
    if (exponent - exponent.round()).abs() < 1e-9 {
        format!("{sign}1e{:.0}", exponent.round())
    } else {
        format!("{sign}{:.2e}", 10f64.powf(exponent))
    }
}

/// A tick of a linear axis spanning `span`: as many digits as tell neighbouring ticks
/// (about a tenth of the span apart) from each other.
fn linear_label(v: f64, span: f64) -> String {
    if v == 0.0 || span <= 0.0 || !span.is_finite() {
        return format!("{v:e}");
    }
    let digits = (v.abs().log10().floor() - (span / 10.0).log10().floor()).clamp(0.0, 16.0);
    format!("{v:.*e}", digits as usize)
}

/// A sweep whose values share a sign and stay within two decades reads on a linear
/// axis; a logarithmic one would put every tick inside the same decade.
fn is_narrow(xs: impl Iterator<Item = f64> + Clone) -> bool {
    let (lo, hi) = xs
        .clone()
        .fold((f64::MAX, f64::MIN), |(a, b), x| (a.min(x), b.max(x)));
    lo.is_finite()
        && hi.is_finite()
        && lo * hi > 0.0
        && hi.abs().max(lo.abs()) < 100.0 * hi.abs().min(lo.abs())
}

fn value(bits: u64, ty: FloatTy) -> f64 {
    match ty {
        FloatTy::F32 => f64::from(f32::from_bits(bits as u32)),
        FloatTy::F64 => f64::from_bits(bits),
    }
}

const KIND_COLOURS: [RGBColor; 10] = [
    RGBColor(0xd6, 0x27, 0x28),
    RGBColor(0x1f, 0x77, 0xb4),
    RGBColor(0xff, 0x7f, 0x0e),
    RGBColor(0x94, 0x67, 0xbd),
    RGBColor(0x2c, 0xa0, 0x2c),
    RGBColor(0x8c, 0x56, 0x4b),
    RGBColor(0xe3, 0x77, 0xc2),
    RGBColor(0x7f, 0x7f, 0x7f),
    RGBColor(0xbc, 0xbd, 0x22),
    RGBColor(0x17, 0xbe, 0xcf),
];

/// Witness inputs of parameter `index` on a signed-log axis, one row per kind.
fn exception_inputs(findings: &[&Merged], index: usize, name: &str, ty: FloatTy) -> Option<Plot> {
    let mut kinds: Vec<&str> = findings.iter().map(|m| m.keyed.finding.rule.id()).collect();
    kinds.sort();
    kinds.dedup();
    let mut points: Vec<(f64, usize)> = Vec::new();
    for m in findings {
        let row = kinds.iter().position(|k| *k == m.keyed.finding.rule.id())?;
        for f in m.all() {
            if let Some(ArgBits::Scalar(bits)) = f.input.get(index) {
                points.push((signed_log(value(*bits, ty)), row));
            }
        }
    }
    if points.is_empty() {
        return None;
    }
    let mut svg = String::new();
    let height = 120 + 40 * kinds.len() as u32;
    {
        let root = SVGBackend::with_string(&mut svg, (WIDTH, height)).into_drawing_area();
        root.fill(&WHITE).ok()?;
        let (lo, hi) = points
            .iter()
            .fold((f64::MAX, f64::MIN), |(lo, hi), (x, _)| {
                (lo.min(*x), hi.max(*x))
            });
        let pad = ((hi - lo) * 0.05).max(5.0);
        let mut chart = ChartBuilder::on(&root)
            .caption(
                format!("witness inputs over {name} (signed log scale)"),
                ("sans-serif", 16),
            )
            .margin(10)
            .x_label_area_size(30)
            .y_label_area_size(150)
            .build_cartesian_2d((lo - pad)..(hi + pad), -0.5f64..(kinds.len() as f64 - 0.5))
            .ok()?;
        chart
            .configure_mesh()
            .x_label_formatter(&signed_log_label)
            .y_labels(kinds.len())
            .y_label_formatter(&|y| {
                let i = y.round();
                if (y - i).abs() < 1e-6 && i >= 0.0 {
                    kinds
                        .get(i as usize)
                        .map(|k| k.to_string())
                        .unwrap_or_default()
                } else {
                    String::new()
                }
            })
            .x_desc(name)
            .draw()
            .ok()?;
        for (row, _) in kinds.iter().enumerate() {
            let colour = KIND_COLOURS[row % KIND_COLOURS.len()];
            chart
                .draw_series(
                    points
                        .iter()
                        .filter(|(_, r)| *r == row)
                        .map(|(x, r)| Circle::new((*x, *r as f64), 5, colour.filled())),
                )
                .ok()?;
        }
        root.present().ok()?;
    }
    Some(Plot {
        id: format!("exceptions-{name}"),
        title: format!("Where each exception lives: witness values of {name}"),
        svg,
    })
}

const CLASSES: [&str; 7] = [
    "zero",
    "subnormal",
    "finite",
    "+inf",
    "-inf",
    "nan",
    "no return",
];

/// The class of a build's result, from its bits and the return type.
fn class_of(run: &BuildRun, ret: Type) -> usize {
    let (Some(bits), true) = (run.result, run.returned) else {
        return 6;
    };
    let v = match ret {
        Type::Scalar(ScalarTy::Float(ty)) => value(bits, ty),
        _ => return 2,
    };
    if v.is_nan() {
        5
    } else if v == f64::INFINITY {
        3
    } else if v == f64::NEG_INFINITY {
        4
    } else if v == 0.0 {
        0
    } else if matches!(ret, Type::Scalar(ScalarTy::Float(FloatTy::F32)))
        && v.abs() < f64::from(f32::MIN_POSITIVE)
        || v.abs() < f64::MIN_POSITIVE
    {
        1
    } else {
        2
    }
}

/// P's result class against P''s, a dot per pair of classes sized by how many
/// witnesses fall there.
fn diff_classes(findings: &[&Finding]) -> Option<Plot> {
    let mut counts = [[0usize; CLASSES.len()]; CLASSES.len()];
    for f in findings {
        let p = f.runs.iter().find(|r| r.build == "P")?;
        let q = f.runs.iter().find(|r| r.build == "P'")?;
        counts[class_of(p, f.ret)][class_of(q, f.ret)] += 1;
    }
    let mut svg = String::new();
    {
        let root = SVGBackend::with_string(&mut svg, (WIDTH, 420)).into_drawing_area();
        root.fill(&WHITE).ok()?;
        let axis = -0.5f64..(CLASSES.len() as f64 - 0.5);
        let mut chart = ChartBuilder::on(&root)
            .caption(
                "result class of P against P' on each witness",
                ("sans-serif", 16),
            )
            .margin(10)
            .x_label_area_size(40)
            .y_label_area_size(80)
            .build_cartesian_2d(axis.clone(), axis)
            .ok()?;
        let label = |v: &f64| {
            let i = v.round();
            if (v - i).abs() < 1e-6 && i >= 0.0 {
                CLASSES
                    .get(i as usize)
                    .map(|c| c.to_string())
                    .unwrap_or_default()
            } else {
                String::new()
            }
        };
        chart
            .configure_mesh()
            .x_labels(CLASSES.len())
            .y_labels(CLASSES.len())
            .x_label_formatter(&label)
            .y_label_formatter(&label)
            .x_desc("P (-O0)")
            .y_desc("P' (fast-math)")
            .draw()
            .ok()?;
        let cells: Vec<(usize, usize, usize)> = (0..CLASSES.len())
            .flat_map(|p| (0..CLASSES.len()).map(move |q| (p, q)))
            .map(|(p, q)| (p, q, counts[p][q]))
            .filter(|(_, _, n)| *n > 0)
            .collect();
        chart
            .draw_series(cells.iter().map(|(p, q, n)| {
                Circle::new(
                    (*p as f64, *q as f64),
                    (6.0 + 4.0 * (*n as f64).sqrt()) as i32,
                    KIND_COLOURS[0].mix(0.7).filled(),
                )
            }))
            .ok()?;
        chart
            .draw_series(cells.iter().map(|(p, q, n)| {
                Text::new(
                    n.to_string(),
                    (*p as f64 + 0.15, *q as f64 + 0.25),
                    ("sans-serif", 14),
                )
            }))
            .ok()?;
        root.present().ok()?;
    }
    Some(Plot {
        id: "diff-classes".to_string(),
        title: "P versus P' result classes over the input pairs found".to_string(),
        svg,
    })
}

/// The error mode's hook: a finding with sweeps (each parameter swept through the worst
/// input) gets a plot of log10 relative error against x per sweep.
fn error_sweeps(f: &Finding) -> Vec<Plot> {
    let Detail::Error(detail) = &f.detail else {
        return Vec::new();
    };
    detail
        .sweeps
        .iter()
        .filter_map(|sweep| {
            let name = sweep.parameter.as_str();
            let finite = sweep
                .points
                .iter()
                .map(|[x, e]| (*x, *e))
                .filter(|(x, e)| x.is_finite() && e.is_finite());
            let linear = is_narrow(finite.clone().map(|(x, _)| x));
            let points: Vec<(f64, f64)> = finite
                .map(|(x, e)| {
                    let x = if linear { x } else { signed_log(x) };
                    (x, e.abs().max(1e-20).log10())
                })
                .collect();
            if points.is_empty() {
                return None;
            }
            let mut svg = String::new();
            {
                let root = SVGBackend::with_string(&mut svg, (WIDTH, 360)).into_drawing_area();
                root.fill(&WHITE).ok()?;
                let (xl, xh, yl, yh) = points.iter().fold(
                    (f64::MAX, f64::MIN, f64::MAX, f64::MIN),
                    |(a, b, c, d), (x, y)| (a.min(*x), b.max(*x), c.min(*y), d.max(*y)),
                );
                let x_axis = if linear {
                    let margin = ((xh - xl) * 0.05).max(xh.abs() * 1e-12);
                    (xl - margin)..(xh + margin)
                } else {
                    (xl - 1.0)..(xh + 1.0)
                };
                let mut chart = ChartBuilder::on(&root)
                    .caption(format!("relative error along {name}"), ("sans-serif", 16))
                    .margin(10)
                    .x_label_area_size(30)
                    .y_label_area_size(60)
                    .build_cartesian_2d(x_axis.clone(), (yl - 0.5)..(yh + 0.5))
                    .ok()?;
                let span = x_axis.end - x_axis.start;
                let x_label = |x: &f64| {
                    if linear {
                        linear_label(*x, span)
                    } else {
                        signed_log_label(x)
                    }
                };
                chart
                    .configure_mesh()
                    .x_label_formatter(&x_label)
                    .y_label_formatter(&|y| power_label("", *y))
                    .x_desc(name)
                    .y_desc("relative error")
                    .draw()
                    .ok()?;
                chart
                    .draw_series(LineSeries::new(points.iter().copied(), &KIND_COLOURS[1]))
                    .ok()?;
                root.present().ok()?;
            }
            Some(Plot {
                id: format!("error-{name}"),
                title: format!("Relative error along a sweep of {name} through the worst input"),
                svg,
            })
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::finding::Rule;
    use crate::ledger::Keyed;
    use fpscout_ir::Param;

    #[test]
    fn json_numbers_read_back_as_the_doubles_written() {
        // Reports are read back from JSON Lines (plots, baselines): a parse one ulp off
        // would move a point off the worst input. serde_json rounds correctly only with
        // its float_roundtrip feature.
        for text in ["24.532475243090914", "1.0000000000000002", "5e-324", "0.1"] {
            let parsed: f64 = serde_json::from_str(text).expect("a number");
            assert_eq!(
                parsed.to_bits(),
                text.parse::<f64>().expect("a number").to_bits(),
                "{text}"
            );
        }
    }

    fn merged(detail: Detail) -> Merged {
        let finding = Finding {
            mode: Mode::Exceptions,
            rule: Rule::Overflow,
            also: Vec::new(),
            function: "f".into(),
            symbol: "f".into(),
            message: String::new(),
            location: None,
            input: vec![ArgBits::Scalar(1e300f64.to_bits())],
            params: vec![Param {
                name: "x".into(),
                ty: Type::Scalar(ScalarTy::Float(FloatTy::F64)),
                pointee: None,
                min_elements: 0,
                unsigned: false,
            }],
            ret: Type::Scalar(ScalarTy::Float(FloatTy::F64)),
            runs: Vec::new(),
            reached: None,
            replay: None,
            detail,
        };
        Merged {
            keyed: Keyed {
                fingerprint: String::new(),
                line_text: None,
                finding,
            },
            others: Vec::new(),
        }
    }

    #[test]
    fn a_finding_with_sweeps_gets_an_error_plot_and_one_without_does_not() {
        let plain = merged(Detail::None);
        let ids: Vec<String> = for_function(&[&plain]).into_iter().map(|p| p.id).collect();
        assert_eq!(ids, ["exceptions-x"]);
        let swept = merged(Detail::Error(crate::finding::ErrorDetail {
            max_rel_error: 0.5,
            ulps: 1e15,
            bits: 52.0,
            output: "the result".into(),
            exact: 1.0,
            native_confirmed: true,
            sweeps: vec![crate::finding::ErrorSweep {
                parameter: "x".into(),
                points: vec![[1.0, 1e-16], [1e10, 1e-3], [1e20, 0.5]],
            }],
        }));
        let plots = for_function(&[&swept]);
        let error = plots
            .iter()
            .find(|p| p.id == "error-x")
            .expect("an error plot");
        assert!(error.svg.contains("<polyline"), "{}", error.svg);
    }

    #[test]
    fn the_signed_log_axis_keeps_order_and_sign() {
        let values = [-1e308, -1.0, -5e-324, 0.0, 5e-324, 1e-300, 1.0, 1e308];
        let mapped: Vec<f64> = values.iter().map(|v| signed_log(*v)).collect();
        assert!(mapped.windows(2).all(|w| w[0] < w[1]), "{mapped:?}");
        assert_eq!(signed_log_label(&signed_log(1e10)), "1e10");
        assert_eq!(signed_log_label(&signed_log(-1e-300)), "-1e-300");
        assert_eq!(signed_log_label(&(325.5)), "3.16e0");
    }

    /// The text of every tick label in an SVG plot.
    fn labels(svg: &str) -> Vec<String> {
        svg.split("<text")
            .skip(1)
            .filter_map(|t| t.split_once('>').and_then(|(_, r)| r.split_once("</text>")))
            .map(|(label, _)| label.trim().to_string())
            .collect()
    }

    #[test]
    fn a_narrow_sweep_gets_ticks_that_differ() {
        // lgammafn swept over [-4, -2]: on the signed-log axis every tick read -1e0.
        let points: Vec<[f64; 2]> = (0..=40)
            .map(|i| [-4.0 + i as f64 * 0.05, 1e-16 * (1.0 + i as f64)])
            .collect();
        let swept = merged(Detail::Error(crate::finding::ErrorDetail {
            max_rel_error: 4e-15,
            ulps: 20.0,
            bits: 4.0,
            output: "the result".into(),
            exact: 1.0,
            native_confirmed: true,
            sweeps: vec![crate::finding::ErrorSweep {
                parameter: "x".into(),
                points,
            }],
        }));
        let plots = for_function(&[&swept]);
        let error = plots.iter().find(|p| p.id == "error-x").expect("a plot");
        let ticks: Vec<String> = labels(&error.svg)
            .into_iter()
            .filter(|l| l.parse::<f64>().is_ok())
            .collect();
        assert!(ticks.len() >= 6, "{ticks:?}");
        let mut unique = ticks.clone();
        unique.sort();
        unique.dedup();
        assert_eq!(unique.len(), ticks.len(), "{ticks:?}");
        assert!(
            ticks.iter().any(|t| t.parse::<f64>() == Ok(-3.0)),
            "{ticks:?}"
        );
    }
}
