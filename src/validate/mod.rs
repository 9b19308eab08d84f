//! The crowd validated like a pedestrian simulator: scenarios from the laboratory literature
//! and the RiMEA test catalogue, run headless on the real simulation, each measured point
//! compared with a target range. `throng validate` writes the table, a CSV and plots; the tests
//! assert every target.

pub mod arena;
pub mod bottleneck;
pub mod counterflow;
pub mod evacuation;
pub mod fundamental;
pub mod walkers;

use std::fmt::Write as _;

/// How long and how large the scenarios run: `Full` for the report, `Quick` for the tests (and
/// `--quick`), smaller and shorter but measuring the same things against the same targets.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Effort {
    Full,
    Quick,
}

impl Effort {
    pub fn pick<T>(self, full: T, quick: T) -> T {
        match self {
            Effort::Full => full,
            Effort::Quick => quick,
        }
    }
}

/// One measured point: what was varied (`parameter` = `value`), what came out (`measured`, in
/// `unit`) and the range it must fall in (NaN: no bound on that side).
#[derive(Debug, Clone, PartialEq)]
pub struct Row {
    pub test: String,
    pub parameter: String,
    pub value: f32,
    pub measured: f32,
    pub unit: String,
    pub target_low: f32,
    pub target_high: f32,
}

impl Row {
    pub fn new(
        test: &str,
        parameter: &str,
        value: f32,
        measured: f32,
        unit: &str,
        target_low: f32,
        target_high: f32,
    ) -> Self {
        Row {
            test: test.to_string(),
            parameter: parameter.to_string(),
            value,
            measured,
            unit: unit.to_string(),
            target_low,
            target_high,
        }
    }

    /// Whether the row has a target at all (some rows only report).
    pub fn has_target(&self) -> bool {
        !self.target_low.is_nan() || !self.target_high.is_nan()
    }

    pub fn pass(&self) -> bool {
        self.measured.is_finite()
            && (self.target_low.is_nan() || self.measured >= self.target_low)
            && (self.target_high.is_nan() || self.measured <= self.target_high)
    }
}

/// Rows as CSV with exactly the columns `test,parameter,value,measured,unit,target_low,
/// target_high,pass`; an open side of a target is an empty field, a row with no target passes.
pub fn to_csv(rows: &[Row]) -> String {
    let mut out = String::from("test,parameter,value,measured,unit,target_low,target_high,pass\n");
    for r in rows {
        let bound = |v: f32| {
            if v.is_nan() {
                String::new()
            } else {
                format!("{v}")
            }
        };
        let _ = writeln!(
            out,
            "{},{},{},{:.4},{},{},{},{}",
            r.test,
            r.parameter,
            r.value,
            r.measured,
            r.unit,
            bound(r.target_low),
            bound(r.target_high),
            r.pass()
        );
    }
    out
}
