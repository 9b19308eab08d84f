//! glTF document → immutable assets, applying the import rules and validating as it goes.

use super::error::ImportError;
use super::gltf_read::{parse, Loaded};
use super::types::*;
use super::{material, vrm};
use glam::{Mat4, Quat, UVec4, Vec2, Vec3, Vec4};
use std::panic::{catch_unwind, AssertUnwindSafe};
use std::path::Path;
use std::sync::atomic::{AtomicU64, Ordering};

static NEXT_SCENE_ID: AtomicU64 = AtomicU64::new(1);

/// Imports a `.gltf`, `.glb` or `.vrm` file. Side files are looked up next to it.
pub fn load_file(path: &Path) -> Result<SceneAsset, ImportError> {
    let file = path
        .file_name()
        .map(|f| f.to_string_lossy().into_owned())
        .unwrap_or_else(|| path.display().to_string());
    // A file that cannot be read is named in full: which one was tried is the question.
    let bytes = crate::file_read::read_capped(path, super::sources::MAX_MODEL_BYTES)
        .map_err(|e| ImportError::new(&path.display().to_string(), format!("read: {e}")))?;
    load_slice(&file, &bytes, path.parent())
}

/// Imports from memory. `file` names the source in error messages; `base_dir` resolves side
/// files (None: only embedded data is allowed).
pub fn load_slice(
    file: &str,
    bytes: &[u8],
    base_dir: Option<&Path>,
) -> Result<SceneAsset, ImportError> {
    // The gltf crate is not audited against hostile input; a panic inside it must still come
    // out as an error for this file, never take the game down.
    match catch_unwind(AssertUnwindSafe(|| import_inner(file, bytes, base_dir))) {
        Ok(r) => r,
        Err(_) => Err(ImportError::new(file, "malformed data (decoder panicked)")),
    }
}

fn import_inner(
    file: &str,
    bytes: &[u8],
    base_dir: Option<&Path>,
) -> Result<SceneAsset, ImportError> {
    let loaded = parse(file, bytes, base_dir)?;
    super::limits::check_document(file, &loaded.doc)?;
    let cx = Cx { file, l: &loaded };
    let mut nodes = cx.nodes()?;
    let mut meshes = Vec::new();
    for m in loaded.doc.meshes() {
        meshes.push(cx.mesh(&m)?);
    }
    let mut skins = Vec::new();
    for s in loaded.doc.skins() {
        skins.push(cx.skin(&s)?);
    }
    bind_check(file, &mut nodes, &meshes, &skins)?;
    compact_palettes(&nodes, &mut meshes, &mut skins);
    let mut animations = Vec::new();
    for a in loaded.doc.animations() {
        animations.push(cx.animation(&a, &nodes, &meshes)?);
    }
    let mut warnings = Vec::new();
    let textures = material::textures(&loaded, &mut warnings);
    let mut materials = material::materials(file, &loaded.doc)?;
    let vrm = vrm::read_vrm(file, &loaded.doc, &nodes, &meshes, &mut materials)?;
    if let Some(vrm) = &vrm {
        let named: Vec<Vec<bool>> = loaded
            .doc
            .meshes()
            .map(|m| file_target_names(&m).iter().map(Option::is_some).collect())
            .collect();
        vrm::name_targets_by_expression(vrm, &named, &mut meshes);
    }
    let roots = (0..nodes.len())
        .filter(|&i| nodes[i].parent.is_none())
        .collect();
    Ok(SceneAsset {
        id: NEXT_SCENE_ID.fetch_add(1, Ordering::Relaxed),
        source: file.to_string(),
        nodes,
        roots,
        meshes,
        skins,
        animations,
        materials,
        textures,
        vrm,
        warnings,
    })
}

/// One JOINTS_n / WEIGHTS_n pair, per vertex.
type InfluenceSet = (Vec<[u16; 4]>, Vec<[f32; 4]>);

struct Cx<'a> {
    file: &'a str,
    l: &'a Loaded,
}

fn finite3(v: Vec3) -> bool {
    v.is_finite()
}

impl<'a> Cx<'a> {
    fn err(&self, m: impl Into<String>) -> ImportError {
        ImportError::new(self.file, m)
    }

    fn nodes(&self) -> Result<Vec<NodeAsset>, ImportError> {
        let mut out = Vec::new();
        for n in self.l.doc.nodes() {
            let (t, r, s) = n.transform().decomposed();
            let local = Transform {
                translation: Vec3::from(t),
                rotation: Quat::from_array(r),
                scale: Vec3::from(s),
            };
            if !local.translation.is_finite()
                || !local.rotation.is_finite()
                || !local.scale.is_finite()
            {
                return Err(self.err(format!(
                    "node {}{}: non-finite transform",
                    n.index(),
                    quoted(n.name())
                )));
            }
            let local = Transform {
                rotation: normalize_or_identity(local.rotation),
                ..local
            };
            out.push(NodeAsset {
                name: n.name().map(str::to_string),
                parent: None,
                children: n.children().map(|c| c.index()).collect(),
                local,
                mesh: n.mesh().map(|m| m.index()),
                skin: n.skin().map(|s| s.index()),
                morph_weights: n.weights().map(|w| w.to_vec()).unwrap_or_default(),
            });
        }
        for i in 0..out.len() {
            for c in out[i].children.clone() {
                if c >= out.len() {
                    return Err(self.err(format!("node {i}: child {c} out of range")));
                }
                if let Some(p) = out[c].parent {
                    return Err(self.err(format!("node {c}: has two parents ({p} and {i})")));
                }
                out[c].parent = Some(i);
            }
        }
        if let Some(n) = find_cycle(&out) {
            return Err(self.err(format!("node {n}: parent cycle")));
        }
        Ok(out)
    }

    fn mesh(&self, m: &gltf::Mesh) -> Result<MeshAsset, ImportError> {
        let mi = m.index();
        let names = file_target_names(m);
        let mut prims = Vec::new();
        let mut target_count = None;
        for p in m.primitives() {
            let prim = self.primitive(m, &p, &names)?;
            let tc = prim.morph_targets.len();
            if *target_count.get_or_insert(tc) != tc {
                return Err(self.err(format!(
                    "mesh {mi}{} primitive {}: {tc} morph targets, other primitives have {}",
                    quoted(m.name()),
                    p.index(),
                    target_count.unwrap_or(0)
                )));
            }
            prims.push(prim);
        }
        let tc = target_count.unwrap_or(0);
        let morph_target_names = (0..tc).map(|i| target_name(&names, i)).collect();
        let default_weights = match m.weights() {
            Some(w) if w.len() == tc => w.to_vec(),
            Some(w) => {
                return Err(self.err(format!(
                    "mesh {mi}{}: {} default weights for {tc} morph targets",
                    quoted(m.name()),
                    w.len()
                )))
            }
            None => vec![0.0; tc],
        };
        if default_weights.iter().any(|w| !w.is_finite()) {
            return Err(self.err(format!("mesh {mi}: non-finite default weight")));
        }
        Ok(MeshAsset {
            name: m.name().map(str::to_string),
            primitives: prims,
            morph_target_names,
            default_weights,
            palette_joints: Vec::new(),
        })
    }

    fn primitive(
        &self,
        m: &gltf::Mesh,
        p: &gltf::Primitive,
        names: &[Option<String>],
    ) -> Result<PrimitiveAsset, ImportError> {
        let at = format!(
            "mesh {}{} primitive {}",
            m.index(),
            quoted(m.name()),
            p.index()
        );
        let e = |msg: String| self.err(format!("{at}: {msg}"));
        let bufs = &self.l.buffers;
        let reader = p.reader(|b| bufs.get(b.index()).map(|d| &d.0[..]));
        // Accessor element types were checked in gltf_read::check_usage.
        use gltf::Semantic as S;
        let positions: Vec<Vec3> = match reader.read_positions() {
            Some(it) => it.map(Vec3::from).collect(),
            None => return Err(e("no POSITION attribute".into())),
        };
        let n = positions.len();
        let count_of = |sem: &S| p.get(sem).map(|a| a.count()).unwrap_or(0);
        if n != count_of(&S::Positions) {
            return Err(e("POSITION data shorter than its count".into()));
        }
        if positions.iter().any(|v| !finite3(*v)) {
            return Err(e("non-finite POSITION".into()));
        }
        let normals: Vec<Vec3> = reader
            .read_normals()
            .map(|it| it.map(Vec3::from).collect())
            .unwrap_or_default();
        let tangents: Vec<Vec4> = reader
            .read_tangents()
            .map(|it| it.map(Vec4::from).collect())
            .unwrap_or_default();
        let uvs: Vec<Vec2> = reader
            .read_tex_coords(0)
            .map(|it| it.into_f32().map(Vec2::from).collect())
            .unwrap_or_default();
        let colors: Vec<Vec4> = reader
            .read_colors(0)
            .map(|it| it.into_rgba_f32().map(Vec4::from).collect())
            .unwrap_or_default();
        for (name, len) in [
            ("NORMAL", normals.len()),
            ("TANGENT", tangents.len()),
            ("TEXCOORD_0", uvs.len()),
            ("COLOR_0", colors.len()),
        ] {
            if len != 0 && len != n {
                return Err(e(format!("{name} has {len} values for {n} vertices")));
            }
        }
        if normals.iter().any(|v| !v.is_finite()) || tangents.iter().any(|v| !v.is_finite()) {
            return Err(e("non-finite NORMAL or TANGENT".into()));
        }
        let indices: Vec<u32> = match reader.read_indices() {
            Some(it) => {
                let v: Vec<u32> = it.into_u32().collect();
                let want = p.indices().map(|a| a.count()).unwrap_or(0);
                if v.len() != want {
                    return Err(e("indices shorter than their count".into()));
                }
                if let Some((k, bad)) = v.iter().enumerate().find(|(_, &i)| i as usize >= n) {
                    return Err(e(format!("index {k} = {bad} out of range ({n} vertices)")));
                }
                v
            }
            None => (0..n as u32).collect(),
        };
        let mode = match p.mode() {
            gltf::mesh::Mode::Triangles => PrimitiveMode::Triangles,
            gltf::mesh::Mode::Points => PrimitiveMode::Points,
            gltf::mesh::Mode::Lines => PrimitiveMode::Lines,
            _ => PrimitiveMode::Other,
        };
        let (joints, weights) = self.skin_attributes(p, n, &e)?;
        let mut morph_targets = Vec::new();
        for (ti, (pos, nor, tan)) in reader.read_morph_targets().enumerate() {
            let name = target_name(names, ti);
            let target = checked_morph_target(
                name,
                n,
                [
                    pos.map(|it| it.map(Vec3::from).collect()),
                    nor.map(|it| it.map(Vec3::from).collect()),
                    tan.map(|it| it.map(Vec3::from).collect()),
                ],
            )
            .map_err(|m| e(format!("morph target {ti}: {m}")))?;
            morph_targets.push(target);
        }
        if morph_targets.len() != p.morph_targets().len() {
            return Err(e("unreadable morph target".into()));
        }
        let mut bounds = Aabb::EMPTY;
        for v in &positions {
            bounds.extend(*v);
        }
        Ok(PrimitiveAsset {
            mode,
            positions,
            normals,
            tangents,
            uvs,
            colors,
            indices,
            joints,
            weights,
            material: p.material().index(),
            morph_targets,
            bounds,
            joint_bounds: Vec::new(),
        })
    }

    /// Reads JOINTS_n/WEIGHTS_n, merges duplicate joints, keeps the 4 largest and normalises.
    /// Joint values here are still skin slots; `compact_palettes` remaps them later.
    fn skin_attributes(
        &self,
        p: &gltf::Primitive,
        n: usize,
        e: &dyn Fn(String) -> ImportError,
    ) -> Result<(Vec<UVec4>, Vec<Vec4>), ImportError> {
        let bufs = &self.l.buffers;
        let reader = p.reader(|b| bufs.get(b.index()).map(|d| &d.0[..]));
        let mut sets: Vec<InfluenceSet> = Vec::new();
        for set in 0..4 {
            let (j, w) = (reader.read_joints(set), reader.read_weights(set));
            match (j, w) {
                (Some(j), Some(w)) => {
                    let j: Vec<[u16; 4]> = j.into_u16().collect();
                    let w: Vec<[f32; 4]> = w.into_f32().collect();
                    if j.len() != n || w.len() != n {
                        return Err(e(format!(
                            "JOINTS_{set}/WEIGHTS_{set} have {}/{} values for {n} vertices",
                            j.len(),
                            w.len()
                        )));
                    }
                    sets.push((j, w));
                }
                (None, None) => break,
                _ => {
                    return Err(e(format!(
                        "JOINTS_{set} without WEIGHTS_{set} or the reverse"
                    )))
                }
            }
        }
        if sets.is_empty() {
            return Ok((Vec::new(), Vec::new()));
        }
        let mut joints = Vec::with_capacity(n);
        let mut weights = Vec::with_capacity(n);
        let mut infl: Vec<(u32, f32)> = Vec::with_capacity(16);
        for v in 0..n {
            infl.clear();
            for (js, ws) in &sets {
                for k in 0..4 {
                    let w = ws[v][k];
                    if !w.is_finite() || w < 0.0 {
                        return Err(e(format!(
                            "vertex {v}: weight {w} is negative or not finite"
                        )));
                    }
                    if w == 0.0 {
                        continue;
                    }
                    let j = js[v][k] as u32;
                    match infl.iter_mut().find(|(jj, _)| *jj == j) {
                        Some(slot) => slot.1 += w,
                        None => infl.push((j, w)),
                    }
                }
            }
            infl.sort_by(|a, b| b.1.total_cmp(&a.1).then(a.0.cmp(&b.0)));
            infl.truncate(4);
            let sum: f32 = infl.iter().map(|x| x.1).sum();
            if sum <= 0.0 {
                return Err(e(format!("vertex {v}: skin weights sum to zero")));
            }
            let mut jv = [0u32; 4];
            let mut wv = [0f32; 4];
            for (k, (j, w)) in infl.iter().enumerate() {
                jv[k] = *j;
                wv[k] = *w / sum;
            }
            joints.push(UVec4::from_array(jv));
            weights.push(Vec4::from_array(wv));
        }
        Ok((joints, weights))
    }

    fn skin(&self, s: &gltf::Skin) -> Result<SkinAsset, ImportError> {
        let at = format!("skin {}{}", s.index(), quoted(s.name()));
        let joints: Vec<usize> = s.joints().map(|j| j.index()).collect();
        if joints.is_empty() {
            return Err(self.err(format!("{at}: no joints")));
        }
        let bufs = &self.l.buffers;
        let reader = s.reader(|b| bufs.get(b.index()).map(|d| &d.0[..]));
        let inverse_bind: Vec<Mat4> = match reader.read_inverse_bind_matrices() {
            Some(it) => it.map(|m| Mat4::from_cols_array_2d(&m)).collect(),
            None => vec![Mat4::IDENTITY; joints.len()],
        };
        if inverse_bind.len() != joints.len() {
            return Err(self.err(format!(
                "{at}: {} inverse bind matrices for {} joints",
                inverse_bind.len(),
                joints.len()
            )));
        }
        if let Some(k) = inverse_bind.iter().position(|m| !m.is_finite()) {
            return Err(self.err(format!("{at}: inverse bind matrix {k} not finite")));
        }
        Ok(SkinAsset {
            name: s.name().map(str::to_string),
            joint_bounds: vec![Aabb::EMPTY; joints.len()],
            joints,
            inverse_bind,
            skeleton: s.skeleton().map(|n| n.index()),
        })
    }

    fn animation(
        &self,
        a: &gltf::Animation,
        nodes: &[NodeAsset],
        meshes: &[MeshAsset],
    ) -> Result<AnimationClipAsset, ImportError> {
        let name = a
            .name()
            .map(str::to_string)
            .unwrap_or_else(|| format!("animation_{}", a.index()));
        let bufs = &self.l.buffers;
        let mut node_channels: Vec<NodeChannelAsset> = Vec::new();
        let mut morph_channels: Vec<MorphChannelAsset> = Vec::new();
        let mut duration = 0.0f32;
        let mut count = 0;
        for (ci, ch) in a.channels().enumerate() {
            count += 1;
            let at = format!("animation {}{} channel {ci}", a.index(), quoted(a.name()));
            let e = |m: String| self.err(format!("{at}: {m}"));
            let node = ch.target().node().index();
            if node >= nodes.len() {
                return Err(e(format!("target node {node} does not exist")));
            }
            let reader = ch.reader(|b| bufs.get(b.index()).map(|d| &d.0[..]));
            let times: Vec<f32> = match reader.read_inputs() {
                Some(it) => it.collect(),
                None => return Err(e("unreadable keyframe times".into())),
            };
            if times.len() != ch.sampler().input().count() {
                return Err(e("keyframe times shorter than their count".into()));
            }
            check_key_times(&times).map_err(e)?;
            let interpolation = match ch.sampler().interpolation() {
                gltf::animation::Interpolation::Linear => Interpolation::Linear,
                gltf::animation::Interpolation::Step => Interpolation::Step,
                gltf::animation::Interpolation::CubicSpline => Interpolation::CubicSpline,
            };
            let per_key = if interpolation == Interpolation::CubicSpline {
                3
            } else {
                1
            };
            duration = duration.max(*times.last().unwrap_or(&0.0));
            use gltf::animation::util::ReadOutputs as R;
            let outputs = reader
                .read_outputs()
                .ok_or_else(|| e("unreadable keyframe values".into()))?;
            let want = times.len() * per_key;
            let bad_count =
                |got: usize| e(format!("{got} keyframe values for {} keys", times.len()));
            let entry = |chs: &mut Vec<NodeChannelAsset>| -> usize {
                match chs.iter().position(|c| c.node == node) {
                    Some(i) => i,
                    None => {
                        chs.push(NodeChannelAsset {
                            node,
                            translation: None,
                            rotation: None,
                            scale: None,
                        });
                        chs.len() - 1
                    }
                }
            };
            match outputs {
                R::Translations(it) | R::Scales(it) => {
                    let is_t = ch.target().property() == gltf::animation::Property::Translation;
                    let values: Vec<Vec3> = it.map(Vec3::from).collect();
                    if values.len() != want {
                        return Err(bad_count(values.len()));
                    }
                    if let Some(k) = values.iter().position(|v| !v.is_finite()) {
                        return Err(e(format!("non-finite value at key {}", k / per_key)));
                    }
                    let track = Track {
                        interpolation,
                        times,
                        values,
                    };
                    let i = entry(&mut node_channels);
                    if is_t {
                        node_channels[i].translation = Some(track);
                    } else {
                        node_channels[i].scale = Some(track);
                    }
                }
                R::Rotations(it) => {
                    let values: Vec<Quat> = it.into_f32().map(Quat::from_array).collect();
                    if values.len() != want {
                        return Err(bad_count(values.len()));
                    }
                    if let Some(k) = values.iter().position(|v| !v.is_finite()) {
                        return Err(e(format!("non-finite value at key {}", k / per_key)));
                    }
                    let i = entry(&mut node_channels);
                    node_channels[i].rotation = Some(Track {
                        interpolation,
                        times,
                        values,
                    });
                }
                R::MorphTargetWeights(it) => {
                    let target_count = nodes[node]
                        .mesh
                        .and_then(|m| meshes.get(m))
                        .map(|m| m.morph_target_names.len())
                        .unwrap_or(0);
                    if target_count == 0 {
                        return Err(e(format!(
                            "weights channel targets node {node}, which has no morph targets"
                        )));
                    }
                    let values: Vec<f32> = it.into_f32().collect();
                    if values.len() != want * target_count {
                        return Err(bad_count(values.len() / target_count));
                    }
                    if let Some(k) = values.iter().position(|v| !v.is_finite()) {
                        return Err(e(format!(
                            "non-finite value at key {}",
                            k / per_key / target_count
                        )));
                    }
                    morph_channels.retain(|c| c.node != node);
                    morph_channels.push(MorphChannelAsset {
                        node,
                        target_count,
                        track: Track {
                            interpolation,
                            times,
                            values,
                        },
                    });
                }
            }
        }
        Ok(AnimationClipAsset {
            name,
            duration,
            source_channel_count: count,
            node_channels,
            morph_channels,
        })
    }
}

/// Keyframe times must be finite, at least 0 and strictly increasing.
fn check_key_times(times: &[f32]) -> Result<(), String> {
    for (k, t) in times.iter().enumerate() {
        if !t.is_finite() || *t < 0.0 {
            return Err(format!(
                "keyframe time {t} at key {k} is not finite and >= 0"
            ));
        }
        if k > 0 && *t <= times[k - 1] {
            return Err(format!("keyframe times not increasing at key {k}"));
        }
    }
    Ok(())
}

/// One morph target of a primitive with `n` vertices from its POSITION, NORMAL and TANGENT
/// deltas (each absent or one per vertex, all finite). A target without POSITION is legal
/// (normals only): it moves nothing.
fn checked_morph_target(
    name: String,
    n: usize,
    [position, normal, tangent]: [Option<Vec<Vec3>>; 3],
) -> Result<MorphTargetAsset, String> {
    let position_deltas = position
        .filter(|d| !d.is_empty())
        .unwrap_or_else(|| vec![Vec3::ZERO; n]);
    let normal_deltas = normal.unwrap_or_default();
    let tangent_deltas = tangent.unwrap_or_default();
    for (what, len, optional) in [
        ("POSITION", position_deltas.len(), false),
        ("NORMAL", normal_deltas.len(), true),
        ("TANGENT", tangent_deltas.len(), true),
    ] {
        if len != n && !(optional && len == 0) {
            return Err(format!("{what} has {len} values for {n} vertices"));
        }
    }
    if position_deltas
        .iter()
        .chain(&normal_deltas)
        .chain(&tangent_deltas)
        .any(|v| !v.is_finite())
    {
        return Err("non-finite delta".into());
    }
    Ok(MorphTargetAsset {
        name,
        position_deltas,
        normal_deltas,
        tangent_deltas,
    })
}

/// ` "Name"` with a leading space, or nothing for unnamed elements.
fn quoted(name: Option<&str>) -> String {
    match name {
        Some(n) => format!(" \"{n}\""),
        None => String::new(),
    }
}

fn normalize_or_identity(q: Quat) -> Quat {
    let l = q.length();
    if l > 1e-12 && l.is_finite() {
        q / l
    } else {
        Quat::IDENTITY
    }
}

/// Target `i`'s name from the file, else `target_i` (a VRM expression may name it later).
fn target_name(names: &[Option<String>], i: usize) -> String {
    match names.get(i) {
        Some(Some(name)) => name.clone(),
        _ => format!("target_{i}"),
    }
}

/// The morph target names the file gives mesh `m` (None where it names nothing):
/// `extras.targetNames` on the mesh, as glTF exporters write it, or else on its first primitive
/// that has one, where UniVRM and the Blender VRM exporter put it.
fn file_target_names(m: &gltf::Mesh) -> Vec<Option<String>> {
    let listed = |extras: &gltf::json::Extras| -> Option<Vec<Option<String>>> {
        let raw = extras.as_ref()?;
        let v = serde_json::from_str::<serde_json::Value>(raw.get()).ok()?;
        let names = v.get("targetNames")?.as_array()?;
        Some(
            names
                .iter()
                .map(|s| s.as_str().map(str::to_string))
                .collect(),
        )
    };
    listed(m.extras())
        .or_else(|| m.primitives().find_map(|p| listed(p.extras())))
        .unwrap_or_default()
}

/// Returns a node that lies on a parent cycle, if any.
pub(crate) fn find_cycle(nodes: &[NodeAsset]) -> Option<usize> {
    // 0 unvisited, 1 on the current walk, 2 known acyclic.
    let mut state = vec![0u8; nodes.len()];
    let mut walk = Vec::new();
    for start in 0..nodes.len() {
        walk.clear();
        let mut cur = Some(start);
        while let Some(i) = cur {
            match state[i] {
                2 => break,
                1 => return Some(i),
                _ => {
                    state[i] = 1;
                    walk.push(i);
                    cur = nodes[i].parent;
                }
            }
        }
        for &i in &walk {
            state[i] = 2;
        }
    }
    None
}

/// Checks node → mesh/skin bindings: weights on joints the skin lacks are errors.
fn bind_check(
    file: &str,
    nodes: &mut [NodeAsset],
    meshes: &[MeshAsset],
    skins: &[SkinAsset],
) -> Result<(), ImportError> {
    for (ni, n) in nodes.iter_mut().enumerate() {
        if let Some(si) = n.skin {
            let Some(skin) = skins.get(si) else {
                return Err(ImportError::new(
                    file,
                    format!("node {ni}: skin {si} out of range"),
                ));
            };
            if let Some(&j) = skin.joints.iter().find(|&&j| j >= usize::MAX / 2) {
                return Err(ImportError::new(
                    file,
                    format!("skin {si}: joint {j} out of range"),
                ));
            }
            if let Some(mi) = n.mesh {
                let Some(mesh) = meshes.get(mi) else {
                    return Err(ImportError::new(
                        file,
                        format!("node {ni}: mesh {mi} out of range"),
                    ));
                };
                for (pi, p) in mesh.primitives.iter().enumerate() {
                    for (v, (j, w)) in p.joints.iter().zip(&p.weights).enumerate() {
                        for k in 0..4 {
                            if w[k] > 0.0 && j[k] as usize >= skin.joints.len() {
                                return Err(ImportError::new(
                                    file,
                                    format!(
                                        "node {ni}: mesh {mi} primitive {pi} vertex {v} uses joint {} but skin {si} has {} joints",
                                        j[k],
                                        skin.joints.len()
                                    ),
                                ));
                            }
                        }
                    }
                }
            }
        }
        if let Some(mi) = n.mesh {
            let Some(mesh) = meshes.get(mi) else {
                return Err(ImportError::new(
                    file,
                    format!("node {ni}: mesh {mi} out of range"),
                ));
            };
            let tc = mesh.morph_target_names.len();
            if n.morph_weights.is_empty() {
                n.morph_weights = mesh.default_weights.clone();
            } else if n.morph_weights.len() != tc {
                return Err(ImportError::new(
                    file,
                    format!(
                        "node {ni}: {} weights for {tc} morph targets",
                        n.morph_weights.len()
                    ),
                ));
            }
            if n.morph_weights.iter().any(|w| !w.is_finite()) {
                return Err(ImportError::new(
                    file,
                    format!("node {ni}: non-finite weight"),
                ));
            }
        } else {
            n.morph_weights.clear();
        }
    }
    Ok(())
}

/// Remaps vertex joints from skin slots to compact per-mesh palette indices (dropping joints no
/// vertex of the mesh uses) and builds the joint bounds used for dynamic skinned bounds.
fn compact_palettes(nodes: &[NodeAsset], meshes: &mut [MeshAsset], skins: &mut [SkinAsset]) {
    for mesh in meshes.iter_mut() {
        let mut used: Vec<u32> = Vec::new();
        for p in &mesh.primitives {
            for (j, w) in p.joints.iter().zip(&p.weights) {
                for k in 0..4 {
                    if w[k] > 0.0 {
                        used.push(j[k]);
                    }
                }
            }
        }
        used.sort_unstable();
        used.dedup();
        let remap = |slot: u32| used.binary_search(&slot).unwrap_or(0) as u32;
        for p in mesh.primitives.iter_mut() {
            let mut jb = vec![Aabb::EMPTY; used.len()];
            for v in 0..p.joints.len() {
                let (j, w) = (p.joints[v], p.weights[v]);
                let mut out = [0u32; 4];
                for k in 0..4 {
                    if w[k] > 0.0 {
                        out[k] = remap(j[k]);
                        jb[out[k] as usize].extend(p.positions[v]);
                    }
                }
                p.joints[v] = UVec4::from_array(out);
            }
            p.joint_bounds = jb;
        }
        mesh.palette_joints = used;
    }
    for n in nodes {
        let (Some(mi), Some(si)) = (n.mesh, n.skin) else {
            continue;
        };
        let (Some(mesh), Some(skin)) = (meshes.get(mi), skins.get_mut(si)) else {
            continue;
        };
        for p in &mesh.primitives {
            for (k, b) in p.joint_bounds.iter().enumerate() {
                let slot = mesh.palette_joints[k] as usize;
                if let Some(sb) = skin.joint_bounds.get_mut(slot) {
                    *sb = sb.union(b);
                }
            }
        }
    }
}
