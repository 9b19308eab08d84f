//! Measurement areas and lines: names shared by both lists, finite corners and ends inside the
//! bounds, areas that are simple polygons with area, lines with length. Where people can stand
//! is not asked: an area may cover an obstacle (its free part is measured) and a line may end
//! against a wall.

use std::collections::HashMap;

use glam::Vec2;

use super::{fmt2, Checker};
use crate::level::schema::*;
use crate::polygon::polygon_area;

/// The shortest measurement line (m): shorter, a person's step would jump it.
pub const MIN_MEASUREMENT_LINE: f32 = 0.2;
/// The smallest measurement area (m²): a 10 cm square; less is corners on one line.
pub const MIN_MEASUREMENT_AREA: f32 = 0.01;

/// What an area's polygon must be, after `; allowed: ` in its message.
const POLYGON_ALLOWED: &str = "a simple polygon of at least 3 (x, z) corners, in either winding, \
     with an area of at least 0.01 m², whose edges meet only at the corners they share";

/// A number for a message: to the centimetre, without trailing zeros.
fn centimetres(v: f32) -> String {
    format!("{}", (v * 100.0).round() / 100.0)
}

/// Whether the closed segments `a`-`b` and `c`-`d` share a point.
fn segments_touch(a: Vec2, b: Vec2, c: Vec2, d: Vec2) -> bool {
    let side = |p: Vec2, q: Vec2, r: Vec2| (q - p).perp_dot(r - p);
    let on = |p: Vec2, q: Vec2, r: Vec2| {
        r.x >= p.x.min(q.x) && r.x <= p.x.max(q.x) && r.y >= p.y.min(q.y) && r.y <= p.y.max(q.y)
    };
    let (d1, d2) = (side(c, d, a), side(c, d, b));
    let (d3, d4) = (side(a, b, c), side(a, b, d));
    if ((d1 > 0.0 && d2 < 0.0) || (d1 < 0.0 && d2 > 0.0))
        && ((d3 > 0.0 && d4 < 0.0) || (d3 < 0.0 && d4 > 0.0))
    {
        return true;
    }
    (d1 == 0.0 && on(c, d, a))
        || (d2 == 0.0 && on(c, d, b))
        || (d3 == 0.0 && on(a, b, c))
        || (d4 == 0.0 && on(a, b, d))
}

/// Whether all corners lie within 5 mm of one line (a polygon with no area, which `not_simple`
/// would call doubled back).
fn flat(points: &[Vec2]) -> bool {
    let a = points[0];
    let b = points
        .iter()
        .copied()
        .max_by(|p, q| a.distance_squared(*p).total_cmp(&a.distance_squared(*q)))
        .unwrap_or(a);
    let len = a.distance(b);
    len == 0.0
        || points
            .iter()
            .all(|p| (b - a).perp_dot(*p - a).abs() / len < 0.005)
}

/// Why a polygon (of at least 3 finite corners) is not simple, if it is not: a corner given
/// twice, two edges that cross or touch away from a shared corner, or an edge doubling back
/// over the one before it.
pub fn not_simple(points: &[Vec2]) -> Option<String> {
    let n = points.len();
    for i in 0..n {
        for j in i + 1..n {
            if points[i] == points[j] {
                return Some(format!(
                    "corners {i} and {j} are the same point {}",
                    fmt2(points[i])
                ));
            }
        }
    }
    let edge = |i: usize| (points[i], points[(i + 1) % n]);
    for i in 0..n {
        // The next edge shares a corner: it may only meet this one there, so it must not
        // turn straight back along it.
        let ((a, b), (_, c)) = (edge(i), edge((i + 1) % n));
        if (b - a).perp_dot(c - b) == 0.0 && (b - a).dot(c - b) < 0.0 {
            return Some(format!(
                "the edges either side of corner {} {} double back over each other",
                (i + 1) % n,
                fmt2(b)
            ));
        }
        for j in i + 2..n {
            if i == 0 && j == n - 1 {
                continue; // the closing edge is next to the first
            }
            let (c, d) = edge(j);
            if segments_touch(a, b, c, d) {
                return Some(format!(
                    "edge {i} {} to {} crosses edge {j} {} to {}",
                    fmt2(a),
                    fmt2(b),
                    fmt2(c),
                    fmt2(d)
                ));
            }
        }
    }
    None
}

impl Checker<'_> {
    /// Measurement areas and lines: one name space, finite numbers inside the bounds, simple
    /// polygons with area, lines at least `MIN_MEASUREMENT_LINE` long.
    pub(super) fn measurements(&mut self, level: &Level) {
        self.measurement_names(level);
        for (i, area) in level.measurement_areas.iter().enumerate() {
            self.measurement_area(i, area, &level.bounds);
        }
        for (i, line) in level.measurement_lines.iter().enumerate() {
            self.measurement_line(i, line, &level.bounds);
        }
    }

    /// Names: not blank, and unique across both lists (a recording names its columns by them).
    fn measurement_names(&mut self, level: &Level) {
        let names = level
            .measurement_areas
            .iter()
            .enumerate()
            .map(|(i, a)| (format!("measurement_areas[{i}]"), a.name.as_str()))
            .chain(
                level
                    .measurement_lines
                    .iter()
                    .enumerate()
                    .map(|(i, l)| (format!("measurement_lines[{i}]"), l.name.as_str())),
            );
        let mut seen: HashMap<&str, String> = HashMap::new();
        for (f, name) in names {
            if name.trim().is_empty() {
                self.fail(format!("{f}.name"), "a name is required");
            } else if let Some(first) = seen.get(name) {
                self.fail(
                    format!("{f}.name"),
                    format!(
                        "`{name}` is already the name of {first}; names must be unique among \
                         measurement areas and lines"
                    ),
                );
            } else {
                seen.insert(name, f);
            }
        }
    }

    fn measurement_area(&mut self, i: usize, area: &MeasurementArea, b: &Bounds) {
        let f = format!("measurement_areas[{i}].polygon");
        let name = &area.name;
        let n = area.polygon.len();
        if n < 3 {
            self.fail(
                f,
                format!("`{name}` has {n} corners; allowed: {POLYGON_ALLOWED}"),
            );
            return;
        }
        let mut ok = true;
        for (k, p) in area.polygon.iter().enumerate() {
            let field = format!("{f}[{k}]");
            if self.finite2(&field, *p) {
                if !b.contains(*p) {
                    self.fail(
                        field,
                        format!(
                            "`{name}`'s corner {} is outside the plaza bounds {} to {}",
                            fmt2(*p),
                            fmt2(b.min),
                            fmt2(b.max)
                        ),
                    );
                    ok = false;
                }
            } else {
                ok = false;
            }
        }
        if !ok {
            return;
        }
        if flat(&area.polygon) {
            self.fail(
                f,
                format!(
                    "`{name}` has no area: its corners lie on one line; allowed: \
                     {POLYGON_ALLOWED}"
                ),
            );
            return;
        }
        if let Some(why) = not_simple(&area.polygon) {
            self.fail(
                f,
                format!("`{name}` is not a simple polygon: {why}; allowed: {POLYGON_ALLOWED}"),
            );
            return;
        }
        let a = polygon_area(&area.polygon);
        if a < MIN_MEASUREMENT_AREA {
            self.fail(
                f,
                format!(
                    "`{name}` has an area of {} m²; allowed: {POLYGON_ALLOWED}",
                    centimetres(a)
                ),
            );
        }
    }

    fn measurement_line(&mut self, i: usize, line: &MeasurementLine, b: &Bounds) {
        let f = format!("measurement_lines[{i}]");
        let name = &line.name;
        let (from, to) = (format!("{f}.from"), format!("{f}.to"));
        let finite_from = self.finite2(&from, line.from);
        if !(self.finite2(&to, line.to) && finite_from) {
            return;
        }
        let mut inside = true;
        for (field, p) in [(from, line.from), (to.clone(), line.to)] {
            if !b.contains(p) {
                self.fail(
                    field,
                    format!(
                        "`{name}`'s end {} is outside the plaza bounds {} to {}",
                        fmt2(p),
                        fmt2(b.min),
                        fmt2(b.max)
                    ),
                );
                inside = false;
            }
        }
        let length = line.length();
        if inside && length < MIN_MEASUREMENT_LINE {
            self.fail(
                to,
                format!(
                    "`{name}` is {} m long; allowed: at least {MIN_MEASUREMENT_LINE} m from `from` \
                     to `to`",
                    centimetres(length)
                ),
            );
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn pts(p: &[(f32, f32)]) -> Vec<Vec2> {
        p.iter().map(|&(x, z)| Vec2::new(x, z)).collect()
    }

    #[test]
    fn simple_polygons_pass_and_crossed_ones_are_named() {
        let square = pts(&[(0.0, 0.0), (4.0, 0.0), (4.0, 4.0), (0.0, 4.0)]);
        assert_eq!(not_simple(&square), None);
        let concave = pts(&[(0.0, 0.0), (4.0, 0.0), (4.0, 4.0), (2.0, 1.0), (0.0, 4.0)]);
        assert_eq!(not_simple(&concave), None);
        let bow_tie = pts(&[(0.0, 0.0), (4.0, 4.0), (4.0, 0.0), (0.0, 4.0)]);
        assert_eq!(
            not_simple(&bow_tie).as_deref(),
            Some("edge 0 (0, 0) to (4, 4) crosses edge 2 (4, 0) to (0, 4)")
        );
        // A corner touching another edge is not simple either.
        let touching = pts(&[(0.0, 0.0), (4.0, 0.0), (4.0, 4.0), (2.0, 0.0), (0.0, 4.0)]);
        assert!(not_simple(&touching).is_some());
        let repeated = pts(&[(0.0, 0.0), (4.0, 0.0), (4.0, 4.0), (4.0, 0.0)]);
        assert_eq!(
            not_simple(&repeated).as_deref(),
            Some("corners 1 and 3 are the same point (4, 0)")
        );
        let spike = pts(&[(0.0, 0.0), (4.0, 0.0), (2.0, 0.0), (2.0, 3.0)]);
        assert!(not_simple(&spike).is_some());
    }
}
