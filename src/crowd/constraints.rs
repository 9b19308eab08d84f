//! The hard part of motion, after steering: positions advance, then bodies are pushed apart until
//! no two overlap, out of obstacles, away from the hero and back inside the bounds.
//!
//! The non-overlap pass is Gauss-Seidel (each push sees the pushes before it, which converges in a
//! few sweeps), yet parallel and deterministic: the cell-sorted agents are cut into bands of grid
//! rows at least as tall as a push reaches, and each sweep relaxes the even bands side by side,
//! then the odd ones. Two even bands never touch each other's neighbours, so each band's result is
//! the same whichever thread runs it and in whatever order: 1, 2 or 8 threads give the same bits.

use glam::Vec2;
use rayon::prelude::*;

use super::grid::CellGrid;
use super::obstacles::ObstacleField;
use super::sorted::SortedAgents;
use super::steering::HERO_RADIUS;
use super::BODY_RADIUS;
use crate::level::Bounds;

/// Sweeps at least, and at most: dense crowds need more to reach the tolerance below.
const MIN_SWEEPS: usize = 1;
const MAX_SWEEPS: usize = 16;
/// A sweep that finds no overlap deeper than this (m) is the last.
const SETTLED: f32 = 0.025;
/// A band is at least this tall (m): more than a push reaches (two bodies plus a step's motion).
const BAND_HEIGHT: f32 = 1.6;

/// What every band reads besides positions.
pub(super) struct ConstraintContext<'a> {
    pub grid: &'a CellGrid,
    pub obstacles: &'a ObstacleField,
    pub bounds: Bounds,
    pub hero: Option<Vec2>,
    /// Where an agent goes if its position ever stops being finite (its goal), by agent index.
    pub fallback: &'a [Vec2],
}

/// A neighbouring band, read-only: its first slot, positions and pinned flags.
#[derive(Clone, Copy)]
struct SharedBand<'a> {
    start: usize,
    x: &'a [f32],
    y: &'a [f32],
    pinned: &'a [u8],
}

/// One band's view of the positions: its own rows mutable, the bands above and below read-only.
struct BandView<'a> {
    first_row: usize,
    rows_per_band: usize,
    band: usize,
    start: usize,
    x: &'a mut [f32],
    y: &'a mut [f32],
    /// 1 where an obstacle, the bounds or the hero held the agent back in this step: it cannot
    /// give way, so whoever overlaps it takes the whole push.
    pinned: &'a mut [u8],
    below: Option<SharedBand<'a>>,
    above: Option<SharedBand<'a>>,
}

impl BandView<'_> {
    /// Positions and pinned flags of sorted slots `run` (all in `row`).
    #[inline]
    fn row_slices(&self, row: usize, run: std::ops::Range<usize>) -> (&[f32], &[f32], &[u8]) {
        let band = row / self.rows_per_band;
        let b = if band == self.band {
            SharedBand {
                start: self.start,
                x: &*self.x,
                y: &*self.y,
                pinned: &*self.pinned,
            }
        } else if band < self.band {
            self.below.expect("rows are clamped to the window")
        } else {
            self.above.expect("rows are clamped to the window")
        };
        let local = run.start - b.start..run.end - b.start;
        (&b.x[local.clone()], &b.y[local.clone()], &b.pinned[local])
    }
}

/// Splits `data` at ascending `bounds` (first 0, last `data.len()`) into one slice per band.
fn split_bands<'a, T>(mut data: &'a mut [T], bounds: &[usize]) -> Vec<&'a mut [T]> {
    let mut out = Vec::with_capacity(bounds.len());
    for w in bounds.windows(2) {
        let (head, tail) = std::mem::take(&mut data).split_at_mut(w[1] - w[0]);
        out.push(head);
        data = tail;
    }
    out
}

impl ConstraintContext<'_> {
    fn rows_per_band(&self) -> usize {
        ((BAND_HEIGHT / self.grid.cell_size()).ceil() as usize).max(1)
    }

    /// Moves everyone to the positions steering advanced them to, then relaxes until settled.
    /// Returns the sweeps it took.
    pub fn apply(&self, agents: &mut SortedAgents) -> usize {
        std::mem::swap(&mut agents.px, &mut agents.qx);
        std::mem::swap(&mut agents.py, &mut agents.qy);
        agents.pinned.clear();
        agents.pinned.resize(agents.px.len(), 0);
        let rpb = self.rows_per_band();
        let bands = self.grid.rows().div_ceil(rpb);
        let bounds: Vec<usize> = (0..=bands)
            .map(|b| self.grid.row_start((b * rpb).min(self.grid.rows())))
            .collect();
        // The deepest overlap each band met when it was last relaxed: after the first sweep,
        // only bands with (or next to) an overlap deeper than `SETTLED` are relaxed again, so
        // extra sweeps cost in proportion to the trouble spots, not to the crowd.
        let mut depth = vec![f32::INFINITY; bands];
        let mut sweeps = 0;
        while sweeps < MAX_SWEEPS {
            self.relax_bands(agents, &bounds, 0, &mut depth);
            self.relax_bands(agents, &bounds, 1, &mut depth);
            sweeps += 1;
            if sweeps >= MIN_SWEEPS && depth.iter().all(|&d| d < SETTLED) {
                break;
            }
        }
        sweeps
    }

    /// Relaxes the unsettled bands of the given parity, side by side, and records the deepest
    /// overlap each met in `depth` (a settled band skipped now counts as 0).
    fn relax_bands(
        &self,
        agents: &mut SortedAgents,
        bounds: &[usize],
        parity: usize,
        depth: &mut [f32],
    ) {
        let rpb = self.rows_per_band();
        let xs = split_bands(&mut agents.px, bounds);
        let ys = split_bands(&mut agents.py, bounds);
        let pins = split_bands(&mut agents.pinned, bounds);
        let mut own = Vec::new();
        let mut shared: Vec<Option<SharedBand>> = vec![None; xs.len()];
        let unsettled: Vec<bool> = (0..depth.len())
            .map(|b| {
                let lo = b.saturating_sub(1);
                let hi = (b + 2).min(depth.len());
                depth[lo..hi].iter().any(|&d| d >= SETTLED)
            })
            .collect();
        for (b, ((x, y), pinned)) in xs.into_iter().zip(ys).zip(pins).enumerate() {
            if b % 2 == parity {
                if unsettled[b] {
                    own.push((b, x, y, pinned));
                } else {
                    depth[b] = 0.0;
                }
            } else {
                shared[b] = Some(SharedBand {
                    start: bounds[b],
                    x: &*x,
                    y: &*y,
                    pinned: &*pinned,
                });
            }
        }
        let ids = &agents.id;
        let mut results = Vec::with_capacity(own.len());
        own.into_par_iter()
            .map(|(band, x, y, pinned)| {
                let neighbour = |b: usize| shared.get(b).copied().flatten();
                let mut view = BandView {
                    first_row: band * rpb,
                    rows_per_band: rpb,
                    band,
                    start: bounds[band],
                    x,
                    y,
                    pinned,
                    below: band.checked_sub(1).and_then(neighbour),
                    above: neighbour(band + 1),
                };
                (band, self.relax_band(&mut view, ids))
            })
            .collect_into_vec(&mut results);
        for (band, d) in results {
            depth[band] = d;
        }
    }

    /// One Gauss-Seidel pass over a band, in slot order.
    fn relax_band(&self, view: &mut BandView, ids: &[u32]) -> f32 {
        let min_d = 2.0 * BODY_RADIUS;
        let rows = self.grid.rows();
        let window_lo = view.first_row.saturating_sub(view.rows_per_band);
        let window_hi = (view.first_row + 2 * view.rows_per_band).min(rows) - 1;
        let mut deepest = 0.0f32;
        for k in 0..view.x.len() {
            let slot = view.start + k;
            let p = Vec2::new(view.x[k], view.y[k]);
            // Someone who left this step still sits in the cell they left from until the
            // grid is rebuilt: no bounds or obstacles for them.
            if super::grid::is_parked(p) {
                continue;
            }
            let mut correction = Vec2::ZERO;
            let cols = self.grid.col_span(p.x, min_d);
            let span = self.grid.row_span(p.y, min_d);
            for row in span.lo.max(window_lo)..=span.hi.min(window_hi) {
                let run = self.grid.run(row, cols);
                let first = run.start;
                let (xs, ys, pins) = view.row_slices(row, run);
                for (k, ((&x, &y), &pinned)) in xs.iter().zip(ys).zip(pins).enumerate() {
                    let j = first + k;
                    let d = p - Vec2::new(x, y);
                    let d2 = d.length_squared();
                    if d2 < min_d * min_d && j != slot {
                        let dist = d2.sqrt();
                        let n = if dist > 1e-6 {
                            d / dist
                        } else {
                            // Exactly on top of each other: split by identity, deterministically.
                            Vec2::from_angle((ids[slot] as usize * 7 + ids[j] as usize) as f32)
                        };
                        deepest = deepest.max(min_d - dist);
                        // Each of two free bodies gives way by half; against one held by a
                        // wall (or a corner), the free one takes the whole push.
                        let share = if pinned != 0 { 1.0 } else { 0.5 };
                        correction += n * (min_d - dist) * share;
                    }
                }
            }
            let wanted = p + correction;
            let settled = self.settle(wanted, ids[slot]);
            view.pinned[k] |= (settled != wanted) as u8;
            view.x[k] = settled.x;
            view.y[k] = settled.y;
        }
        deepest
    }

    /// Out of the hero, out of obstacles, inside the bounds, finite.
    fn settle(&self, mut p: Vec2, id: u32) -> Vec2 {
        if let Some(h) = self.hero {
            let reach = HERO_RADIUS + BODY_RADIUS;
            let d = p - h;
            if d.length_squared() < reach * reach {
                p = h + d.try_normalize().unwrap_or(Vec2::X) * reach;
            }
        }
        let p = self.obstacles.resolve(p, BODY_RADIUS);
        let p = p.clamp(
            self.bounds.min + Vec2::splat(BODY_RADIUS),
            self.bounds.max - Vec2::splat(BODY_RADIUS),
        );
        if p.is_finite() {
            p
        } else {
            self.fallback[id as usize]
        }
    }
}
