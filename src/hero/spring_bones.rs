//! Spring bones at run time: hair and clothes that swing. The three-vrm / VRMC_springBone
//! verlet (inertia × (1 − drag), stiffness pulling back to the animated rest direction,
//! gravity, bone length kept, colliders pushing the tail out), with three changes:
//!
//! - **Fixed 60 Hz steps** with an accumulator, whatever the frame rate; the output rotations
//!   are interpolated between the last two steps (so the result lags one step at every frame
//!   rate alike), and the body's matrices are interpolated across a frame for the steps inside
//!   it, so 30, 60 and 144 Hz rendering give the same motion.
//! - **Scale**: stiffness and gravity displacements, hit radii and collider radii/offsets are
//!   multiplied by the world scale of their node, and bone lengths come from the current pose,
//!   so a hero scaled 2× moves exactly as the same hero, 2× larger.
//! - **Reset** on a jump of the model (teleport, respawn) or on `reset()`: tails go back to
//!   the rest pose instead of whipping across the level.
//!
//! Plain data: reads the animated pose's world matrices and the model matrix, writes the local
//! rotations of the joints. No allocation per step.

use glam::{Mat4, Quat, Vec3};

use crate::anim::ScenePose;
use crate::asset::vrm_spring::{SpringBoneAsset, SpringColliderShape, SpringTail};
use crate::asset::{SceneAsset, Transform};

/// Simulation rate (Hz).
pub const SPRING_HZ: f32 = 60.0;
/// Seconds per step.
pub const SPRING_STEP: f32 = 1.0 / SPRING_HZ;
/// A model move longer than this (metres, world) within one frame is a teleport: reset.
pub const TELEPORT_DISTANCE: f32 = 2.0;
/// At most this many steps per frame (half a second); a longer hitch drops the rest.
const MAX_STEPS_PER_FRAME: u32 = 30;
/// The springs sleep (no steps, no pose change) while the body holds still and no tail moved
/// more than this fraction of its bone's length in the last step; any body motion wakes them.
const SLEEP_MOTION: f32 = 2e-3;
/// Collider push-outs per joint and step: a push out of one collider can land in another.
const COLLISION_PASSES: usize = 4;

/// Where a joint's parent matrix comes from.
#[derive(Debug, Clone, Copy)]
enum Parent {
    /// Another joint, simulated before this one.
    Joint(usize),
    /// A node of the animated pose (slot in `anchors`).
    Anchor(usize),
}

#[derive(Debug, Clone)]
struct Joint {
    node: usize,
    parent: Parent,
    /// Rest local transform: the spring replaces the animation's rotation of this node.
    bind: Transform,
    /// Rest tail in the joint's local space.
    child_local: Vec3,
    /// `child_local` normalised.
    axis: Vec3,
    stiffness: f32,
    gravity: Vec3,
    drag: f32,
    hit_radius: f32,
    chain: usize,
    /// Tail positions in the chain's center space (world when none), last two steps.
    prev_tail: Vec3,
    cur_tail: Vec3,
    /// Scratch: this joint's world matrix after the current step / output.
    world: Mat4,
}

#[derive(Debug, Clone)]
struct Chain {
    /// Range of `colliders_of` holding this chain's colliders.
    colliders: std::ops::Range<usize>,
    /// Anchor slot of the center node.
    center: Option<usize>,
}

#[derive(Debug, Clone, Copy)]
struct Collider {
    anchor: usize,
    shape: SpringColliderShape,
}

/// What one update did, for the panels and the bench.
#[derive(Debug, Clone, Copy, Default, PartialEq)]
pub struct SpringStats {
    pub joints: usize,
    /// Fixed steps taken this update.
    pub steps: u32,
    pub steps_total: u64,
    pub resets: u64,
    /// Asleep this update: body still, tails at rest, pose left alone.
    pub asleep: bool,
    /// Collider push-outs since the start (tests: the colliders did act).
    pub pushes_total: u64,
    /// (joint, collider) pairs within reach since the start: the pairs the push-outs were
    /// tried for (the others cost one bounding-sphere test each).
    pub in_reach_total: u64,
}

#[derive(Debug, Clone)]
pub struct SpringBones {
    joints: Vec<Joint>,
    chains: Vec<Chain>,
    colliders: Vec<Collider>,
    /// Collider indices per chain (flattened, see `Chain::colliders`).
    colliders_of: Vec<usize>,
    /// Pose nodes read from the animation (`None`: the model matrix itself).
    anchor_nodes: Vec<Option<usize>>,
    /// World matrices of the anchors at the previous frame and this one.
    anchors_prev: Vec<Mat4>,
    anchors_now: Vec<Mat4>,
    /// Matrices blended for a step inside the frame.
    anchors_step: Vec<Mat4>,
    /// Scratch of each step: every collider's world bounding sphere (centre, radius), so a
    /// joint tests only the colliders within its reach.
    bounds: Vec<(Vec3, f32)>,
    /// Scratch of each joint: its chain's colliders within reach.
    in_reach: Vec<usize>,
    /// Seconds of simulated time not yet stepped (0 ≤ acc < `SPRING_STEP`).
    acc: f32,
    needs_reset: bool,
    /// The model's position at the last update (teleport check).
    last_model: Option<Vec3>,
    /// Largest tail move of the last step relative to its bone length (sleep check).
    last_motion: f32,
    /// Rotations were written into the pose (so turning off restores the rest rotations).
    applied: bool,
    pub enabled: bool,
    pub stats: SpringStats,
}

/// The anchor slots handed out so far, by node: a lookup per joint and collider, so building
/// stays linear in their number.
#[derive(Default)]
struct AnchorSlots {
    nodes: Vec<Option<usize>>,
    slot_of: std::collections::HashMap<Option<usize>, usize>,
}

impl AnchorSlots {
    fn slot(&mut self, node: Option<usize>) -> usize {
        *self.slot_of.entry(node).or_insert_with(|| {
            self.nodes.push(node);
            self.nodes.len() - 1
        })
    }
}

/// Uniform world scale of a matrix (length of its x axis, as three-vrm's helpers measure it).
fn world_scale(m: &Mat4) -> f32 {
    m.x_axis.truncate().length()
}

fn blend(a: &Mat4, b: &Mat4, t: f32) -> Mat4 {
    if t >= 1.0 {
        return *b;
    }
    let (sa, ra, ta) = a.to_scale_rotation_translation();
    let (sb, rb, tb) = b.to_scale_rotation_translation();
    Mat4::from_scale_rotation_translation(sa.lerp(sb, t), ra.slerp(rb, t), ta.lerp(tb, t))
}

/// Signed distance from `p` (with radius `r`) to a collider in world space: negative inside
/// (on the wrong side of) it.
fn distance(shape: &SpringColliderShape, m: &Mat4, p: Vec3, r: f32) -> f32 {
    super::spring_colliders::surface(shape, m, p).distance(p, r)
}

impl SpringBones {
    /// The runtime for a model's spring bones (empty for models without them).
    pub fn new(scene: &SceneAsset) -> SpringBones {
        let empty = SpringBoneAsset::default();
        let asset = scene.vrm.as_ref().map_or(&empty, |v| &v.springs);
        Self::from_asset(scene, asset)
    }

    /// Builds in time linear in the asset's joints and collider references (the import limits
    /// of `asset::limits::check_springs` bound both).
    pub fn from_asset(scene: &SceneAsset, asset: &SpringBoneAsset) -> SpringBones {
        let mut anchors = AnchorSlots::default();
        let mut joints: Vec<Joint> = Vec::new();
        let mut chains = Vec::new();
        let mut colliders = Vec::new();
        let mut colliders_of = Vec::new();
        let mut collider_slot = vec![None; asset.colliders.len()];
        // The last chain each collider slot was listed for: a collider in two of a spring's
        // groups is listed once, without searching the list.
        let mut listed_for: Vec<usize> = Vec::new();
        // This chain's joints by node, for the parent lookup.
        let mut joint_of_node: std::collections::HashMap<usize, usize> = Default::default();
        for spring in &asset.springs {
            let start = colliders_of.len();
            let chain = chains.len();
            for &g in &spring.collider_groups {
                for &c in asset
                    .collider_groups
                    .get(g)
                    .map_or(&[][..], |g| &g.colliders[..])
                {
                    let Some(col) = asset.colliders.get(c) else {
                        continue;
                    };
                    let slot = *collider_slot[c].get_or_insert_with(|| {
                        colliders.push(Collider {
                            anchor: anchors.slot(Some(col.node)),
                            shape: col.shape,
                        });
                        listed_for.push(usize::MAX);
                        colliders.len() - 1
                    });
                    if listed_for[slot] != chain {
                        listed_for[slot] = chain;
                        colliders_of.push(slot);
                    }
                }
            }
            chains.push(Chain {
                colliders: start..colliders_of.len(),
                center: spring.center.map(|c| anchors.slot(Some(c))),
            });
            joint_of_node.clear();
            for j in &spring.joints {
                let Some(node) = scene.nodes.get(j.node) else {
                    continue;
                };
                let child_local = match j.tail {
                    SpringTail::Node(c) => scene
                        .nodes
                        .get(c)
                        .map_or(Vec3::ZERO, |c| c.local.translation),
                    SpringTail::Local(v) => v,
                };
                let Some(axis) = child_local.try_normalize() else {
                    continue; // a zero-length bone has no direction to swing
                };
                // The parent is a joint of this chain when simulated before this one (the
                // latest such joint when a node is listed twice).
                let parent = match node.parent {
                    Some(p) => match joint_of_node.get(&p) {
                        Some(&k) => Parent::Joint(k),
                        None => Parent::Anchor(anchors.slot(Some(p))),
                    },
                    None => Parent::Anchor(anchors.slot(None)),
                };
                joint_of_node.insert(j.node, joints.len());
                let s = j.settings;
                joints.push(Joint {
                    node: j.node,
                    parent,
                    bind: node.local,
                    child_local,
                    axis,
                    stiffness: s.stiffness,
                    gravity: s.gravity_dir * s.gravity_power,
                    drag: s.drag,
                    hit_radius: s.hit_radius,
                    chain,
                    prev_tail: Vec3::ZERO,
                    cur_tail: Vec3::ZERO,
                    world: Mat4::IDENTITY,
                });
            }
        }
        let anchor_nodes = anchors.nodes;
        let n = anchor_nodes.len();
        let collider_count = colliders.len();
        SpringBones {
            stats: SpringStats {
                joints: joints.len(),
                ..Default::default()
            },
            joints,
            chains,
            colliders,
            colliders_of,
            anchor_nodes,
            anchors_prev: vec![Mat4::IDENTITY; n],
            anchors_now: vec![Mat4::IDENTITY; n],
            anchors_step: vec![Mat4::IDENTITY; n],
            bounds: vec![(Vec3::ZERO, 0.0); collider_count],
            in_reach: Vec::with_capacity(collider_count),
            acc: 0.0,
            needs_reset: true,
            last_model: None,
            last_motion: f32::INFINITY,
            applied: false,
            enabled: true,
        }
    }

    pub fn is_empty(&self) -> bool {
        self.joints.is_empty()
    }

    pub fn joint_count(&self) -> usize {
        self.joints.len()
    }

    /// The next update starts from the rest pose (spawn, level change, teleport).
    pub fn reset(&mut self) {
        self.needs_reset = true;
    }

    /// Simulated tail positions (world space when the chain has no center), one per joint, at
    /// the last step: for tests and debug drawing.
    /// The joints' nodes, in the order of `tails` and `world_tails`.
    pub fn joint_nodes(&self) -> impl Iterator<Item = usize> + '_ {
        self.joints.iter().map(|j| j.node)
    }

    pub fn tails(&self) -> impl Iterator<Item = Vec3> + '_ {
        self.joints.iter().map(|j| j.cur_tail)
    }

    /// Tails of the last step in world space, with each joint's world hit radius.
    pub fn world_tails(&self) -> Vec<(Vec3, f32)> {
        self.joints
            .iter()
            .map(|j| {
                let c2w = self.center_to_world(j.chain, &self.anchors_now);
                let s = world_scale(&j.world);
                (c2w.transform_point3(j.cur_tail), j.hit_radius * s)
            })
            .collect()
    }

    /// How far each tail of the last step is inside a collider of its chain (world metres,
    /// 0 when outside), the largest over all joints: for tests.
    pub fn max_penetration(&self) -> f32 {
        let mut worst = 0.0f32;
        for (j, (p, r)) in self.joints.iter().zip(self.world_tails()) {
            for &c in &self.colliders_of[self.chains[j.chain].colliders.clone()] {
                let col = &self.colliders[c];
                let d = distance(&col.shape, &self.anchors_now[col.anchor], p, r);
                worst = worst.max(-d);
            }
        }
        worst
    }

    /// (joint node, collider index, depth) for every tail inside a collider: for debugging.
    pub fn penetrations(&self) -> Vec<(usize, usize, f32)> {
        let mut out = Vec::new();
        for (j, (p, r)) in self.joints.iter().zip(self.world_tails()) {
            for &c in &self.colliders_of[self.chains[j.chain].colliders.clone()] {
                let col = &self.colliders[c];
                let d = distance(&col.shape, &self.anchors_now[col.anchor], p, r);
                if d < 0.0 {
                    out.push((j.node, c, -d));
                }
            }
        }
        out
    }

    fn center_to_world(&self, chain: usize, anchors: &[Mat4]) -> Mat4 {
        self.chains[chain]
            .center
            .map_or(Mat4::IDENTITY, |a| anchors[a])
    }

    fn read_anchors(&mut self, model: &Mat4, pose: &ScenePose) {
        for (slot, node) in self.anchor_nodes.iter().enumerate() {
            self.anchors_now[slot] = match node {
                Some(n) => *model * pose.world(*n).copied().unwrap_or(Mat4::IDENTITY),
                None => *model,
            };
        }
    }

    /// One frame of `dt` seconds: steps at 60 Hz (as many as fit), then writes the joints'
    /// interpolated rotations into `pose` and re-resolves its world matrices. Expects `pose`
    /// resolved (the mixer's output). Nothing happens while `dt` is 0 (paused).
    pub fn update(&mut self, dt: f32, model: &Mat4, pose: &mut ScenePose) {
        self.stats.steps = 0;
        self.stats.asleep = false;
        if self.joints.is_empty() || pose.world_matrices().is_none() {
            return;
        }
        if !self.enabled {
            if self.applied {
                for j in &self.joints {
                    if let Some(l) = pose.local_mut(j.node) {
                        l.rotation = j.bind.rotation;
                    }
                }
                self.applied = false;
                let _ = pose.update_world_matrices();
            }
            self.needs_reset = true;
            return;
        }
        let dt = if dt.is_finite() { dt.max(0.0) } else { 0.0 };
        if dt == 0.0 && !self.needs_reset {
            return;
        }
        std::mem::swap(&mut self.anchors_prev, &mut self.anchors_now);
        self.read_anchors(model, pose);
        let here = model.w_axis.truncate();
        let moved = self.last_model.map_or(0.0, |p| (here - p).length());
        self.last_model = Some(here);
        if self.needs_reset || moved > TELEPORT_DISTANCE {
            self.rest_tails();
            self.anchors_prev.copy_from_slice(&self.anchors_now);
            self.acc = 0.0;
            self.needs_reset = false;
            self.last_motion = 0.0;
            self.stats.resets += 1;
        } else if self.anchors_now == self.anchors_prev && self.last_motion < SLEEP_MOTION {
            self.stats.asleep = true;
            self.acc = 0.0;
            return;
        } else {
            let a0 = self.acc;
            self.acc += dt;
            let mut due = 0u32;
            while self.acc >= SPRING_STEP * (1.0 - 1e-4) {
                self.acc = (self.acc - SPRING_STEP).max(0.0);
                due += 1;
            }
            // A hitch longer than the cap: fewer steps spread over the whole frame (each sees
            // more of the body's motion) rather than hair left behind at a past pose.
            let capped = due > MAX_STEPS_PER_FRAME;
            if capped {
                due = MAX_STEPS_PER_FRAME;
                self.acc = 0.0;
            }
            for k in 1..=due {
                // Where in this frame the step falls, for the body's matrices.
                let s = if capped {
                    k as f32 / due as f32
                } else {
                    ((k as f32 * SPRING_STEP - a0) / dt).clamp(0.0, 1.0)
                };
                for i in 0..self.anchors_step.len() {
                    self.anchors_step[i] = blend(&self.anchors_prev[i], &self.anchors_now[i], s);
                }
                self.step();
                self.stats.steps += 1;
            }
            self.stats.steps_total += self.stats.steps as u64;
        }
        self.write_output(pose);
    }

    fn parent_world(&self, j: usize, anchors: &[Mat4]) -> Mat4 {
        match self.joints[j].parent {
            Parent::Joint(k) => self.joints[k].world,
            Parent::Anchor(a) => anchors[a],
        }
    }

    /// Tails at the rest pose of the current frame, no velocity.
    fn rest_tails(&mut self) {
        for j in 0..self.joints.len() {
            let world = self.parent_world(j, &self.anchors_now) * self.joints[j].bind.matrix();
            let w2c = self
                .center_to_world(self.joints[j].chain, &self.anchors_now)
                .inverse();
            let joint = &mut self.joints[j];
            let tail = w2c.transform_point3(world.transform_point3(joint.child_local));
            joint.prev_tail = tail;
            joint.cur_tail = tail;
            joint.world = world;
        }
    }

    /// Every collider's world bounding sphere at `anchors_step`.
    fn collider_bounds(&mut self) {
        for (b, col) in self.bounds.iter_mut().zip(&self.colliders) {
            *b = super::spring_colliders::bounds(&col.shape, &self.anchors_step[col.anchor]);
        }
    }

    /// One fixed step with the body at `anchors_step`.
    fn step(&mut self) {
        let h = SPRING_STEP;
        let mut pushes = 0u64;
        let mut in_reach_total = 0u64;
        let mut motion = 0.0f32;
        self.collider_bounds();
        let mut in_reach = std::mem::take(&mut self.in_reach);
        for j in 0..self.joints.len() {
            let anchors = &self.anchors_step;
            let parent = self.parent_world(j, anchors);
            let chain = self.joints[j].chain;
            let c2w = self.center_to_world(chain, anchors);
            let joint = &self.joints[j];
            let rest = parent * joint.bind.matrix();
            let origin = rest.w_axis.truncate();
            let length = (rest.transform_point3(joint.child_local) - origin).length();
            let scale = world_scale(&rest);
            let axis = rest.transform_vector3(joint.axis).normalize_or_zero();
            // Verlet in center space, forces in world space (scaled with the model).
            let inertia = joint.cur_tail + (joint.cur_tail - joint.prev_tail) * (1.0 - joint.drag);
            let mut next = c2w.transform_point3(inertia)
                + axis * (joint.stiffness * h * scale)
                + joint.gravity * (h * scale);
            next = origin + (next - origin).try_normalize().unwrap_or(axis) * length;
            let r = joint.hit_radius * scale;
            // The tail stays `length` from `origin`: a collider whose bounding sphere is
            // farther than that (plus the hit radius) cannot touch it this step.
            in_reach.clear();
            for &c in &self.colliders_of[self.chains[chain].colliders.clone()] {
                let (centre, radius) = self.bounds[c];
                let reach = length + r + radius;
                if (centre - origin).length_squared() <= reach * reach {
                    in_reach.push(c);
                }
            }
            in_reach_total += in_reach.len() as u64;
            for _ in 0..COLLISION_PASSES {
                let mut hit = false;
                for &c in &in_reach {
                    let col = &self.colliders[c];
                    let surface =
                        super::spring_colliders::surface(&col.shape, &anchors[col.anchor], next);
                    if surface.distance(next, r) < 0.0 {
                        next = surface.push(origin, length, next, r);
                        hit = true;
                        pushes += 1;
                    }
                }
                if !hit {
                    break;
                }
            }
            let w2c = c2w.inverse();
            let rot = Self::rotation(&rest, joint, next);
            let world = parent
                * Mat4::from_scale_rotation_translation(
                    joint.bind.scale,
                    rot,
                    joint.bind.translation,
                );
            let joint = &mut self.joints[j];
            let tail = w2c.transform_point3(next);
            motion = motion.max((tail - joint.cur_tail).length() / length.max(1e-9));
            joint.prev_tail = joint.cur_tail;
            joint.cur_tail = tail;
            joint.world = world;
        }
        self.in_reach = in_reach;
        self.last_motion = motion;
        self.stats.pushes_total += pushes;
        self.stats.in_reach_total += in_reach_total;
    }

    /// The joint's local rotation that points its rest axis at the world point `tail`.
    fn rotation(rest: &Mat4, joint: &Joint, tail: Vec3) -> Quat {
        let to = rest
            .inverse()
            .transform_point3(tail)
            .try_normalize()
            .unwrap_or(joint.axis);
        (joint.bind.rotation * Quat::from_rotation_arc(joint.axis, to)).normalize()
    }

    /// Rotations from the tails interpolated between the last two steps (the step lag is the
    /// same at any frame rate), over this frame's body; written into the pose.
    fn write_output(&mut self, pose: &mut ScenePose) {
        let alpha = (self.acc / SPRING_STEP).clamp(0.0, 1.0);
        for j in 0..self.joints.len() {
            let parent = self.parent_world(j, &self.anchors_now);
            let c2w = self.center_to_world(self.joints[j].chain, &self.anchors_now);
            let joint = &self.joints[j];
            let rest = parent * joint.bind.matrix();
            let tail = c2w.transform_point3(joint.prev_tail.lerp(joint.cur_tail, alpha));
            let rot = Self::rotation(&rest, joint, tail);
            if let Some(l) = pose.local_mut(joint.node) {
                l.rotation = rot;
            }
            let world = parent
                * Mat4::from_scale_rotation_translation(
                    joint.bind.scale,
                    rot,
                    joint.bind.translation,
                );
            self.joints[j].world = world;
        }
        self.applied = true;
        let _ = pose.update_world_matrices();
    }
}
