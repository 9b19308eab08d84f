//! Steering: a social-force model (Helbing & Molnár) for the smooth part — a drive towards the
//! goal with arrival, exponential repulsion from nearby people, the hero and obstacles,
//! anticipation of near misses and a keep-right rule. The hard part (bodies never overlap, never
//! enter obstacles, never leave the bounds) is `constraints`.
//!
//! Why this and not ORCA: at 100,000 agents on two cores the per-agent budget is about 200 ns;
//! social forces cost one pass over the nearest neighbours with no linear programme per agent.
//! New velocities are computed from the previous state only, so the result is the same whatever
//! the thread count.
//!
//! The kernel: candidates come from contiguous runs of the cell-sorted arrays and are rejected by
//! squared distance before any square root; the K nearest (not the first K found: that would
//! favour one side of the scan) go into fixed-width lanes, and the pair forces are evaluated
//! branch-free over the lanes with a polynomial exp. The lane loop is compiled twice, for AVX2
//! and for baseline x86-64, and picked at run time; both do the same IEEE operations in the same
//! order, so the result does not depend on the CPU either.

use glam::Vec2;
use rayon::prelude::*;

use super::grid::CellGrid;
use super::obstacles::ObstacleField;
use super::sorted::{SortedAgents, ACTIVE, FINAL_LEG, FLEEING, SCATTERING, STANDING};
use super::{StepInputs, BODY_RADIUS};

/// Relaxation time towards the desired velocity (s).
const TAU: f32 = 0.45;
/// Social force strength (m/s²) and range (m) between people.
const AGENT_PUSH: f32 = 3.0;
const AGENT_RANGE: f32 = 0.25;
const OBSTACLE_PUSH: f32 = 5.0;
const OBSTACLE_RANGE: f32 = 0.3;
/// Distance from an obstacle's edge (m) within which walkers slide along it.
const SLIDE_RANGE: f32 = 1.2;
const MAX_ACCEL: f32 = 4.0;
/// How far ahead a walker reacts to people in its way (m).
pub(super) const LOOK_AHEAD: f32 = 1.6;
/// Neighbours a walker weighs at most per step: the nearest ones. In a packed crowd the nearest
/// dozen and a half decide a step; more only cost.
pub(super) const MAX_NEIGHBOURS: usize = 8;
/// How far ahead (s) and how strongly (m/s²·s) walkers avoid predicted contacts.
const ANTICIPATION_SECONDS: f32 = 2.0;
const ANTICIPATION_PUSH: f32 = 1.5;
const CONTACT: f32 = 2.0 * BODY_RADIUS + 0.3;
/// How hard walkers veer right of people squarely ahead (m/s²).
const KEEP_RIGHT: f32 = 2.5;
const MAX_ACCEL_SCATTER: f32 = 9.0;
pub(super) const RUN_SPEED: f32 = 3.4;
pub(super) const HERO_RADIUS: f32 = 0.35;
/// The follow rule (Tordeux, Chraibi & Seyfried's collision-free speed model, 2016): a walker
/// goes no faster than its free distance / `FOLLOW_TIME`, the speed at which it would close the
/// gap to the person ahead of it in `FOLLOW_TIME` seconds. This is what makes walking speed fall
/// with density as in the laboratory (the fundamental diagram). The free distance is measured to
/// where the bodies would touch (`DIAMETER` squarely ahead, less for someone offset to one side,
/// nobody a diameter or more to the side), so the rule alone never walks anyone into the person
/// ahead; the constraint pass is left with the pushes sideways. Tuned with `throng validate` on
/// the fundamental diagram, the bottleneck flows and the evacuation together (0.45 to 0.7 s; see
/// docs/CROWD.md, round 3).
const FOLLOW_TIME: f32 = 0.55;
/// People slower than this along the walker's heading (m/s) are passed, not followed: they stand,
/// or come the other way, and the forces steer round them.
const FOLLOW_MIN_SPEED: f32 = 0.05;

/// Two bodies touch at this centre distance (m).
const DIAMETER: f32 = 2.0 * BODY_RADIUS;

/// The fastest a walker may go with `free` metres before it would touch the person ahead.
fn follow_speed(free: f32) -> f32 {
    (free / FOLLOW_TIME).max(0.0)
}

/// The social force is capped at 8 times its strength: exp(x) for x up to ln 8.
const LN_8: f32 = 2.079_441_5;

/// Lanes evaluated together (one AVX2 register of f32).
const LANES: usize = 8;
/// Neighbour lanes: `MAX_NEIGHBOURS` rounded up to whole registers.
const NEIGHBOUR_LANES: usize = MAX_NEIGHBOURS.div_ceil(LANES) * LANES;
/// Candidates kept while scanning; when full, only the nearest `MAX_NEIGHBOURS` stay.
const CANDIDATES: usize = 64;

/// Everything the steering pass reads: the previous state, sorted by cell.
pub(super) struct SteerContext<'a> {
    pub grid: &'a CellGrid,
    pub agents: &'a SortedAgents,
    pub obstacles: &'a ObstacleField,
    pub inputs: &'a StepInputs,
    pub personal_space: f32,
}

/// The neighbours weighed for one agent, one lane each; unused lanes hold a far-away dummy that
/// every mask rejects.
struct NeighbourLanes {
    /// Registers in use: lanes past the last neighbour up to a whole register hold dummies.
    chunks: usize,
    dx: [f32; NEIGHBOUR_LANES],
    dy: [f32; NEIGHBOUR_LANES],
    vx: [f32; NEIGHBOUR_LANES],
    vy: [f32; NEIGHBOUR_LANES],
    /// 1 for a walker, 0 for someone standing (holding a spot, queuing, sitting): standing people
    /// pushed forward by others are passed, never followed.
    walking: [f32; NEIGHBOUR_LANES],
}

/// The per-agent terms the pair forces need.
struct PairTerms {
    vx: f32,
    vy: f32,
    /// Unit heading of the wish, and its right-hand side.
    hx: f32,
    hy: f32,
    rx: f32,
    ry: f32,
    /// Repulsion reaches this far (personal space plus two bodies).
    range: f32,
    half_personal_space: f32,
    /// Seated and queuing people are pushed less: they hold their place.
    push: f32,
}

/// e^x to within 5e-6 relative (far below what a force needs), branch-free and without
/// float-to-int conversions so it vectorises cleanly: 2^(x log2 e) split into a whole power
/// (built in the exponent bits) and a polynomial for the fraction in [-0.5, 0.5].
#[inline(always)]
pub(super) fn fast_exp(x: f32) -> f32 {
    // Adding and removing 1.5 * 2^23 rounds to a whole number (for |t| < 2^22).
    const ROUND: f32 = 12_582_912.0;
    let t = (x * std::f32::consts::LOG2_E).clamp(-126.0, 126.0);
    let whole = (t + ROUND) - ROUND;
    let f = t - whole;
    let p = 1.0
        + f * (std::f32::consts::LN_2
            + f * (0.240_226_5 + f * (0.055_504_11 + f * (0.009_618_129 + f * 0.001_333_355))));
    // whole + 127 + 2^23 holds the biased exponent in its low mantissa bits.
    let biased = (whole + (127.0 + 8_388_608.0))
        .to_bits()
        .wrapping_sub(0x4B00_0000);
    p * f32::from_bits(biased << 23)
}

/// What the neighbours do to one agent: the summed pair forces, and for a walker the distance
/// (along its heading, centre to centre) to the nearest person walking ahead of it in its file.
struct PairOutcome {
    force: Vec2,
    headway: f32,
}

/// Sums the pair forces over all lanes, in a fixed order whatever the instruction set.
#[inline(always)]
fn pair_forces_body<const WALKING: bool>(n: &NeighbourLanes, a: &PairTerms) -> PairOutcome {
    let mut ax = [0.0f32; LANES];
    let mut ay = [0.0f32; LANES];
    let mut headway = [f32::MAX; LANES];
    for chunk in 0..n.chunks.min(NEIGHBOUR_LANES / LANES) {
        for k in 0..LANES {
            let i = chunk * LANES + k;
            let (dx, dy) = (n.dx[i], n.dy[i]);
            let dist = (dx * dx + dy * dy).sqrt();
            let inv = 1.0 / dist.max(1e-5);
            let gap = dist - 2.0 * BODY_RADIUS;
            let e = fast_exp(((a.half_personal_space - gap) / AGENT_RANGE).min(LN_8));
            let repel = if dist < a.range {
                AGENT_PUSH * a.push * e * inv
            } else {
                0.0
            };
            let mut fx = dx * repel;
            let mut fy = dy * repel;
            if WALKING {
                let in_sight = dist < LOOK_AHEAD;
                // Anticipation: where will the two be closest, and how soon? Steer away from that
                // future contact now, harder the sooner it comes.
                let rvx = a.vx - n.vx[i];
                let rvy = a.vy - n.vy[i];
                let speed2 = rvx * rvx + rvy * rvy;
                let t = -(dx * rvx + dy * rvy) / speed2.max(1e-4);
                let mx = dx + rvx * t;
                let my = dy + rvy * t;
                let miss = (mx * mx + my * my).sqrt();
                let towards = miss > 1e-4;
                let miss_inv = 1.0 / miss.max(1e-4);
                let awx = if towards { mx * miss_inv } else { a.rx };
                let awy = if towards { my * miss_inv } else { a.ry };
                let hit = in_sight
                    & (speed2 > 1e-4)
                    & (t > 0.0)
                    & (t < ANTICIPATION_SECONDS)
                    & (miss < CONTACT);
                let w = if hit {
                    ANTICIPATION_PUSH * (1.0 - miss / CONTACT) / t.max(0.25)
                } else {
                    0.0
                };
                fx += awx * w;
                fy += awy * w;
                // Keep right: people ahead make a walker veer to its right, so two flows pass
                // each other instead of pushing head-on. Stronger the closer and the more
                // squarely ahead the other person is.
                let ahead = -(a.hx * dx + a.hy * dy) * inv;
                let same_way =
                    (n.vx[i] * a.hx + n.vy[i] * a.hy > FOLLOW_MIN_SPEED) & (n.walking[i] > 0.5);
                let right = if in_sight & (ahead > 0.5) & !same_way {
                    KEEP_RIGHT * ahead * (1.0 - dist / LOOK_AHEAD)
                } else {
                    0.0
                };
                fx += a.rx * right;
                fy += a.ry * right;
                // Headway: someone walking the same way, ahead and in line (their bodies would
                // touch if this walker kept going), limits how fast it can follow.
                let along = -(a.hx * dx + a.hy * dy);
                let lateral = (a.rx * dx + a.ry * dy).abs();
                let in_file = (along > 0.0) & (lateral < DIAMETER) & same_way;
                // The free distance: how far this walker can go straight on before its body
                // touches the other's (a body's diameter squarely ahead, less when offset).
                let contact = (DIAMETER * DIAMETER - lateral * lateral).max(0.0).sqrt();
                let free = along - contact;
                headway[k] = headway[k].min(if in_file { free } else { f32::MAX });
            }
            ax[k] += fx;
            ay[k] += fy;
        }
    }
    let mut force = Vec2::ZERO;
    let mut nearest = f32::MAX;
    for k in 0..LANES {
        force += Vec2::new(ax[k], ay[k]);
        nearest = nearest.min(headway[k]);
    }
    PairOutcome {
        force,
        headway: nearest,
    }
}

#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx2")]
unsafe fn pair_forces_avx2<const WALKING: bool>(n: &NeighbourLanes, a: &PairTerms) -> PairOutcome {
    pair_forces_body::<WALKING>(n, a)
}

/// True when the AVX2 build of the lane loop can run here (checked once; std caches it).
pub fn simd_level() -> &'static str {
    #[cfg(target_arch = "x86_64")]
    if std::arch::is_x86_feature_detected!("avx2") {
        return "avx2";
    }
    "baseline"
}

fn pair_forces(n: &NeighbourLanes, a: &PairTerms, walking: bool) -> PairOutcome {
    if n.chunks == 0 {
        return PairOutcome {
            force: Vec2::ZERO,
            headway: f32::MAX,
        };
    }
    #[cfg(target_arch = "x86_64")]
    if std::arch::is_x86_feature_detected!("avx2") {
        // SAFETY: the CPU supports AVX2, checked just above.
        return unsafe {
            if walking {
                pair_forces_avx2::<true>(n, a)
            } else {
                pair_forces_avx2::<false>(n, a)
            }
        };
    }
    if walking {
        pair_forces_body::<true>(n, a)
    } else {
        pair_forces_body::<false>(n, a)
    }
}

/// Keeps the `MAX_NEIGHBOURS` nearest of `cands` at the front (nearest first when there were
/// more) and returns how many that is.
/// Each key is the squared distance's bits (non-negative floats order like their bits) above the
/// slot: one integer order, nearest first and then by slot, so the set kept does not depend on
/// the scan.
fn keep_nearest(cands: &mut [u64]) -> usize {
    let k = MAX_NEIGHBOURS;
    if cands.len() <= k {
        return cands.len();
    }
    // The first K, sorted by insertion; then each later key that beats the K-th slides in. A
    // handful of candidates past K is the usual case: cheaper than a general selection.
    for i in 1..k {
        let key = cands[i];
        let mut j = i;
        while j > 0 && cands[j - 1] > key {
            cands[j] = cands[j - 1];
            j -= 1;
        }
        cands[j] = key;
    }
    for i in k..cands.len() {
        let key = cands[i];
        if key < cands[k - 1] {
            let mut j = k - 1;
            while j > 0 && cands[j - 1] > key {
                cands[j] = cands[j - 1];
                j -= 1;
            }
            cands[j] = key;
        }
    }
    k
}

fn candidate_key(d2: f32, slot: usize) -> u64 {
    ((d2.to_bits() as u64) << 32) | slot as u64
}

fn key_d2(key: u64) -> f32 {
    f32::from_bits((key >> 32) as u32)
}

/// Candidates expected inside the first scan, in multiples of `MAX_NEIGHBOURS`: enough that
/// fewer than K turn up (and the full look-ahead is scanned again) only rarely.
const SCAN_MARGIN: f32 = 1.6;

impl SteerContext<'_> {
    /// How far neighbours are weighed: the look-ahead, or further when personal space is wider.
    fn reach(&self) -> f32 {
        LOOK_AHEAD.max(self.personal_space + 2.0 * BODY_RADIUS)
    }

    /// People per m² around `p`, from the cell counts of the box reaching `r` (no positions
    /// read).
    fn local_density(&self, p: Vec2, r: f32) -> f32 {
        let cols = self.grid.col_span(p.x, r);
        let rows = self.grid.row_span(p.y, r);
        let people: usize = (rows.lo..=rows.hi)
            .map(|row| self.grid.run(row, cols).len())
            .sum();
        let cell = self.grid.cell_size();
        let area = ((cols.hi - cols.lo + 1) * (rows.hi - rows.lo + 1)) as f32 * cell * cell;
        people as f32 / area
    }

    /// Keys of everyone within `radius` of `p` (itself and exact overlaps excluded), nearest
    /// `MAX_NEIGHBOURS` first when there are more; returns how many keys are valid.
    fn scan(&self, p: Vec2, radius: f32, cands: &mut [u64; CANDIDATES]) -> usize {
        let a = self.agents;
        let mut count = 0;
        let mut limit = radius * radius;
        let cols = self.grid.col_span(p.x, radius);
        let rows = self.grid.row_span(p.y, radius);
        for row in rows.lo..=rows.hi {
            let run = self.grid.run(row, cols);
            let (xs, ys) = (&a.px[run.clone()], &a.py[run.clone()]);
            for k in 0..xs.len().min(ys.len()) {
                let (dx, dy) = (p.x - xs[k], p.y - ys[k]);
                let d2 = dx * dx + dy * dy;
                // Branch-free: the key is always written and kept only if near (about half the
                // box is outside the circle, a branch the CPU cannot predict). Exactly on top of
                // each other (or itself): no direction to push; the constraints separate them.
                cands[count] = candidate_key(d2, run.start + k);
                count += ((d2 < limit) & (d2 > 1e-10)) as usize;
                if count == CANDIDATES {
                    // A pile-up: keep the nearest so far and only look closer from now on.
                    count = keep_nearest(&mut cands[..count]);
                    limit = key_d2(cands[..count].iter().copied().max().unwrap_or(0));
                }
            }
        }
        keep_nearest(&mut cands[..count])
    }

    /// The nearest neighbours of the agent at `p` within the reach, as lanes relative to `p`.
    /// Where the crowd is dense, a smaller circle expected to hold a few more than K is scanned
    /// first; only if it holds fewer than K is the whole reach scanned.
    fn neighbours(&self, p: Vec2) -> NeighbourLanes {
        let reach = self.reach();
        let mut cands = [0u64; CANDIDATES];
        let mut count = 0;
        // Large cells mean a sparse crowd: the whole reach holds few people.
        if self.grid.cell_size() < reach {
            let density = self.local_density(p, self.grid.cell_size() * 0.5);
            let wanted = SCAN_MARGIN * MAX_NEIGHBOURS as f32;
            let first = (wanted / (std::f32::consts::PI * density.max(1e-3))).sqrt();
            if first < reach {
                count = self.scan(p, first, &mut cands);
            }
        }
        if count < MAX_NEIGHBOURS {
            count = self.scan(p, reach, &mut cands);
        }
        let a = self.agents;
        let mut lanes = NeighbourLanes {
            chunks: count.div_ceil(LANES),
            dx: [1e3; NEIGHBOUR_LANES],
            dy: [0.0; NEIGHBOUR_LANES],
            vx: [0.0; NEIGHBOUR_LANES],
            vy: [0.0; NEIGHBOUR_LANES],
            walking: [0.0; NEIGHBOUR_LANES],
        };
        for (k, &key) in cands[..count].iter().enumerate() {
            let j = (key & 0xFFFF_FFFF) as usize;
            lanes.dx[k] = p.x - a.px[j];
            lanes.dy[k] = p.y - a.py[j];
            lanes.vx[k] = a.vx[j];
            lanes.vy[k] = a.vy[j];
            lanes.walking[k] = if a.flags[j] & STANDING == 0 { 1.0 } else { 0.0 };
        }
        lanes
    }

    /// The new velocity of the agent in `slot`.
    fn velocity(&self, slot: usize) -> Vec2 {
        let a = self.agents;
        let p = a.pos(slot);
        let v = a.vel(slot);
        let flags = a.flags[slot];
        if flags & ACTIVE == 0 {
            return v;
        }
        let dt = a.steer_dt[slot];
        let scattering = flags & SCATTERING != 0;
        let standing = flags & STANDING != 0;
        let to_goal = Vec2::new(a.tx[slot], a.ty[slot]) - p;
        let dist = to_goal.length();
        let speed = if scattering {
            RUN_SPEED
        } else {
            a.pref_speed[slot]
        };
        let heading = if standing || dist <= 1e-4 {
            Vec2::ZERO
        } else {
            to_goal / dist
        };
        let right = Vec2::new(heading.y, -heading.x);
        let terms = PairTerms {
            vx: v.x,
            vy: v.y,
            hx: heading.x,
            hy: heading.y,
            rx: right.x,
            ry: right.y,
            range: self.personal_space + 2.0 * BODY_RADIUS,
            // Fleeing people push in closer (the constraints still keep bodies apart).
            half_personal_space: if flags & FLEEING != 0 {
                self.personal_space * 0.25
            } else {
                self.personal_space * 0.5
            },
            push: if standing { 0.5 } else { 1.0 },
        };
        let pairs = pair_forces(&self.neighbours(p), &terms, !standing);
        // Follow: no faster than the gap to the person ahead allows (scattering people push on
        // regardless).
        let follow = if standing || scattering {
            f32::MAX
        } else {
            follow_speed(pairs.headway)
        };
        let desired = if standing {
            // Hold the spot; drift back gently if pushed off it.
            if dist > 0.3 {
                to_goal / dist * (dist * 0.8).min(0.6)
            } else {
                Vec2::ZERO
            }
        } else {
            // Arrive: slow down over the last 1.5 m of the final leg instead of overshooting.
            let arrive = if flags & FINAL_LEG != 0 {
                (dist / 1.5).min(1.0)
            } else {
                1.0
            };
            heading * (speed * arrive).min(follow)
        };
        let mut accel = (desired - v) / TAU + pairs.force;
        if let Some(h) = self.inputs.hero_position {
            let d = p - h;
            let dist = d.length();
            let reach = self.personal_space * 2.0 + HERO_RADIUS + BODY_RADIUS;
            if dist < reach && dist > 1e-5 {
                // Make way: a stronger push than from other people, and sideways of the hero's path.
                let side = Vec2::new(-self.inputs.hero_velocity.y, self.inputs.hero_velocity.x)
                    .normalize_or_zero();
                let side = if side.dot(d) < 0.0 { -side } else { side };
                accel += (d / dist + side * 0.5) * AGENT_PUSH * 2.0 * (1.0 - dist / reach);
            }
        }
        if self.obstacles.clearance_at_least(p) < BODY_RADIUS + SLIDE_RANGE {
            self.obstacles.for_each_near(p, |d, n| {
                let gap = d - BODY_RADIUS;
                if gap < 1.0 {
                    accel += n * OBSTACLE_PUSH * fast_exp((-gap / OBSTACLE_RANGE).min(10f32.ln()));
                }
                // Slide: near a wall, the part of the wish that points into it turns along it, so
                // people walk around furniture and along walls to a gap instead of pressing on.
                if gap < SLIDE_RANGE {
                    let into = desired.dot(n);
                    if into < 0.0 {
                        let along = n.perp();
                        // Squarely into the wall, the wish has no side: keep the way it
                        // is already moving, or it would flip every step and stand still.
                        let side = along.dot(desired) + along.dot(v);
                        let along = if side >= 0.0 { along } else { -along };
                        let w = 1.0 - (gap / SLIDE_RANGE).max(0.0);
                        accel += (along - n) * (-into) * w / TAU;
                    }
                }
            });
        }
        let cap = if scattering {
            MAX_ACCEL_SCATTER
        } else {
            MAX_ACCEL
        };
        let accel = accel.clamp_length_max(cap);
        let max_speed = if scattering {
            RUN_SPEED * 1.1
        } else {
            a.pref_speed[slot] * 1.3
        };
        let mut nv = (v + accel * dt).clamp_length_max(max_speed);
        // The follow rule holds for the velocity walked, not only the one wished: pushes from
        // behind and the forces do not carry anyone into the person ahead (issue #30: with the
        // pushes passed on, narrow doors ran above the laboratory's flows and wide ones below).
        let along = nv.dot(heading);
        if along > follow {
            nv -= heading * (along - follow);
        }
        let nv = self.stop_into_walls(p, nv, dt);
        if nv.is_finite() {
            nv
        } else {
            Vec2::ZERO
        }
    }

    /// `v` without the part that would carry a body touching a wall further into it in `dt`:
    /// that part would only be undone by the constraint pass, and a person kept "walking" into
    /// a wall looks to the people behind like someone they can follow closely.
    fn stop_into_walls(&self, p: Vec2, mut v: Vec2, dt: f32) -> Vec2 {
        const TOUCHING: f32 = 0.05;
        if self.obstacles.clearance_at_least(p) >= BODY_RADIUS + TOUCHING {
            return v;
        }
        self.obstacles.for_each_near(p, |d, n| {
            let gap = (d - BODY_RADIUS).max(0.0);
            let into = -v.dot(n);
            if gap < TOUCHING && into > gap / dt {
                v += n * (into - gap / dt);
            }
        });
        v
    }
}

/// Steers every agent: fills `nvx`/`nvy` and the advanced positions `qx`/`qy` from the
/// previous state, on all threads of the current
/// pool. Each slot's result depends only on the shared previous state.
pub(super) fn steer(
    grid: &CellGrid,
    agents: &mut SortedAgents,
    obstacles: &ObstacleField,
    inputs: &StepInputs,
    personal_space: f32,
    dt: f32,
) {
    let mut nvx = std::mem::take(&mut agents.nvx);
    let mut nvy = std::mem::take(&mut agents.nvy);
    let mut qx = std::mem::take(&mut agents.qx);
    let mut qy = std::mem::take(&mut agents.qy);
    qx.resize(nvx.len(), 0.0);
    qy.resize(nvx.len(), 0.0);
    {
        let ctx = SteerContext {
            grid,
            agents,
            obstacles,
            inputs,
            personal_space,
        };
        const CHUNK: usize = 256;
        // The advanced position is written here too, saving the constraints a pass.
        nvx.par_chunks_mut(CHUNK)
            .zip(nvy.par_chunks_mut(CHUNK))
            .zip(qx.par_chunks_mut(CHUNK).zip(qy.par_chunks_mut(CHUNK)))
            .enumerate()
            .for_each(|(c, ((vxs, vys), (qxs, qys)))| {
                for k in 0..vxs.len() {
                    let slot = c * CHUNK + k;
                    let v = ctx.velocity(slot);
                    vxs[k] = v.x;
                    vys[k] = v.y;
                    qxs[k] = ctx.agents.px[slot] + v.x * dt;
                    qys[k] = ctx.agents.py[slot] + v.y * dt;
                }
            });
    }
    agents.nvx = nvx;
    agents.nvy = nvy;
    agents.qx = qx;
    agents.qy = qy;
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn keeps_exactly_the_nearest_whatever_the_scan_order() {
        let mut rng = fastrand::Rng::with_seed(4);
        for n in [3, MAX_NEIGHBOURS, MAX_NEIGHBOURS + 1, 20, CANDIDATES] {
            let keys: Vec<u64> = (0..n).map(|s| candidate_key(rng.f32() * 2.5, s)).collect();
            let mut expected = keys.clone();
            expected.sort();
            expected.truncate(MAX_NEIGHBOURS);
            let mut shuffled = keys.clone();
            rng.shuffle(&mut shuffled);
            let kept = keep_nearest(&mut shuffled);
            let mut kept_keys = shuffled[..kept].to_vec();
            kept_keys.sort();
            assert_eq!(kept_keys, expected, "{n} candidates");
        }
    }

    /// The AVX2 build and the baseline build of the lane loop give the same bits, so a crowd
    /// steps identically on any x86-64.
    #[test]
    fn avx2_and_baseline_kernels_agree_bit_for_bit() {
        let mut rng = fastrand::Rng::with_seed(8);
        for case in 0..2000 {
            let n = case % (NEIGHBOUR_LANES + 1);
            let mut lanes = NeighbourLanes {
                chunks: n.div_ceil(LANES),
                dx: [1e3; NEIGHBOUR_LANES],
                dy: [0.0; NEIGHBOUR_LANES],
                vx: [0.0; NEIGHBOUR_LANES],
                vy: [0.0; NEIGHBOUR_LANES],
                walking: [0.0; NEIGHBOUR_LANES],
            };
            for k in 0..n {
                lanes.dx[k] = rng.f32() * 3.2 - 1.6;
                lanes.dy[k] = rng.f32() * 3.2 - 1.6;
                lanes.vx[k] = rng.f32() * 3.0 - 1.5;
                lanes.vy[k] = rng.f32() * 3.0 - 1.5;
                lanes.walking[k] = (rng.u8(..) % 2) as f32;
            }
            let h = Vec2::from_angle(rng.f32() * 6.3);
            let terms = PairTerms {
                vx: rng.f32() * 2.0 - 1.0,
                vy: rng.f32() * 2.0 - 1.0,
                hx: h.x,
                hy: h.y,
                rx: h.y,
                ry: -h.x,
                range: 1.0,
                half_personal_space: 0.3,
                push: 1.0,
            };
            let base = pair_forces_body::<true>(&lanes, &terms);
            assert!(base.force.is_finite());
            #[cfg(target_arch = "x86_64")]
            if std::arch::is_x86_feature_detected!("avx2") {
                // SAFETY: AVX2 is present, checked just above.
                let wide = unsafe { pair_forces_avx2::<true>(&lanes, &terms) };
                assert_eq!(
                    base.force.to_array().map(f32::to_bits),
                    wide.force.to_array().map(f32::to_bits)
                );
                assert_eq!(base.headway.to_bits(), wide.headway.to_bits());
            }
        }
    }

    #[test]
    fn fast_exp_is_close_to_exp() {
        let mut x = -30.0f32;
        while x < 3.0 {
            let (a, b) = (fast_exp(x), x.exp());
            assert!((a - b).abs() <= b * 5e-6 + 1e-30, "{x}: {a} vs {b}");
            x += 0.0137;
        }
        assert_eq!(fast_exp(-1000.0), f32::from_bits(1 << 23));
        assert!(fast_exp(f32::NAN).is_nan());
    }
}
