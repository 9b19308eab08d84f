use glam::{Mat4, Quat, UVec4, Vec2, Vec3, Vec4};
use std::collections::BTreeMap;

/// Local translation / rotation / scale of a node (glTF order: T * R * S).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Transform {
    pub translation: Vec3,
    pub rotation: Quat,
    pub scale: Vec3,
}

impl Default for Transform {
    fn default() -> Self {
        Self::IDENTITY
    }
}

impl Transform {
    pub const IDENTITY: Self = Self {
        translation: Vec3::ZERO,
        rotation: Quat::IDENTITY,
        scale: Vec3::ONE,
    };

    pub fn matrix(&self) -> Mat4 {
        Mat4::from_scale_rotation_translation(self.scale, self.rotation, self.translation)
    }
}

/// Axis-aligned box. `EMPTY` has min > max so the first `extend` sets it.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Aabb {
    pub min: Vec3,
    pub max: Vec3,
}

impl Default for Aabb {
    fn default() -> Self {
        Self::EMPTY
    }
}

impl Aabb {
    pub const EMPTY: Self = Self {
        min: Vec3::splat(f32::INFINITY),
        max: Vec3::splat(f32::NEG_INFINITY),
    };

    pub fn is_empty(&self) -> bool {
        self.min.x > self.max.x
    }

    pub fn extend(&mut self, p: Vec3) {
        self.min = self.min.min(p);
        self.max = self.max.max(p);
    }

    pub fn union(&self, o: &Aabb) -> Aabb {
        Aabb {
            min: self.min.min(o.min),
            max: self.max.max(o.max),
        }
    }

    pub fn contains(&self, p: Vec3, eps: f32) -> bool {
        p.cmpge(self.min - Vec3::splat(eps)).all() && p.cmple(self.max + Vec3::splat(eps)).all()
    }

    pub fn expanded(&self, r: f32) -> Aabb {
        if self.is_empty() {
            return *self;
        }
        Aabb {
            min: self.min - Vec3::splat(r),
            max: self.max + Vec3::splat(r),
        }
    }

    /// Box of the 8 transformed corners: conservative for any affine matrix.
    pub fn transformed(&self, m: &Mat4) -> Aabb {
        if self.is_empty() {
            return *self;
        }
        let mut out = Aabb::EMPTY;
        for i in 0..8 {
            let c = Vec3::new(
                if i & 1 == 0 { self.min.x } else { self.max.x },
                if i & 2 == 0 { self.min.y } else { self.max.y },
                if i & 4 == 0 { self.min.z } else { self.max.z },
            );
            out.extend(m.transform_point3(c));
        }
        out
    }

    pub fn extent(&self) -> f32 {
        if self.is_empty() {
            0.0
        } else {
            (self.max - self.min).length()
        }
    }
}

#[derive(Debug, Clone)]
pub struct NodeAsset {
    pub name: Option<String>,
    pub parent: Option<usize>,
    pub children: Vec<usize>,
    /// Bind-pose local transform (a node `matrix` is decomposed into TRS).
    pub local: Transform,
    pub mesh: Option<usize>,
    pub skin: Option<usize>,
    /// Default morph weights for this instance: node.weights, else mesh.weights, else zeros.
    pub morph_weights: Vec<f32>,
}

#[derive(Debug, Clone)]
pub struct MorphTargetAsset {
    pub name: String,
    pub position_deltas: Vec<Vec3>,
    /// Empty when the file gives no NORMAL deltas.
    pub normal_deltas: Vec<Vec3>,
    /// Empty when the file gives no TANGENT deltas.
    pub tangent_deltas: Vec<Vec3>,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum PrimitiveMode {
    Points,
    Lines,
    Triangles,
    Other,
}

#[derive(Debug, Clone)]
pub struct PrimitiveAsset {
    pub mode: PrimitiveMode,
    pub positions: Vec<Vec3>,
    pub normals: Vec<Vec3>,
    pub tangents: Vec<Vec4>,
    pub uvs: Vec<Vec2>,
    pub colors: Vec<Vec4>,
    /// Triangle list indices (a non-indexed primitive gets 0..n).
    pub indices: Vec<u32>,
    /// Per vertex up to 4 *palette* joint indices (indices into `MeshAsset::palette_joints`),
    /// sorted by descending weight; weights normalised to sum 1. Empty for rigid primitives.
    pub joints: Vec<UVec4>,
    pub weights: Vec<Vec4>,
    pub material: Option<usize>,
    pub morph_targets: Vec<MorphTargetAsset>,
    pub bounds: Aabb,
    /// Per palette joint: bounds (mesh bind space) of this primitive's vertices it influences.
    pub joint_bounds: Vec<Aabb>,
}

impl PrimitiveAsset {
    pub fn vertex_count(&self) -> usize {
        self.positions.len()
    }
    pub fn is_skinned(&self) -> bool {
        !self.joints.is_empty()
    }
    pub fn triangle_count(&self) -> usize {
        if self.mode == PrimitiveMode::Triangles {
            self.indices.len() / 3
        } else {
            0
        }
    }
}

#[derive(Debug, Clone)]
pub struct MeshAsset {
    pub name: Option<String>,
    pub primitives: Vec<PrimitiveAsset>,
    pub morph_target_names: Vec<String>,
    pub default_weights: Vec<f32>,
    /// Skin joint slots (indices into `SkinAsset::joints`) that carry weight in this mesh, in
    /// ascending order. Zero-weight helper bones (IK poles, controls) are left out, so palettes
    /// hold only joints that move vertices.
    pub palette_joints: Vec<u32>,
}

#[derive(Debug, Clone)]
pub struct SkinAsset {
    pub name: Option<String>,
    pub joints: Vec<usize>,
    pub inverse_bind: Vec<Mat4>,
    pub skeleton: Option<usize>,
    /// Per joint slot: bounds (mesh bind space) of every vertex it influences, over all meshes
    /// bound with this skin.
    pub joint_bounds: Vec<Aabb>,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Interpolation {
    Linear,
    Step,
    CubicSpline,
}

/// One sampler's keys. For CUBICSPLINE `values` holds (in-tangent, value, out-tangent) per key.
#[derive(Debug, Clone)]
pub struct Track<T> {
    pub interpolation: Interpolation,
    pub times: Vec<f32>,
    pub values: Vec<T>,
}

#[derive(Debug, Clone)]
pub struct NodeChannelAsset {
    pub node: usize,
    pub translation: Option<Track<Vec3>>,
    pub rotation: Option<Track<Quat>>,
    pub scale: Option<Track<Vec3>>,
}

/// Morph weights of one node; `values` is flat, `target_count` values per key (×3 for cubic).
#[derive(Debug, Clone)]
pub struct MorphChannelAsset {
    pub node: usize,
    pub target_count: usize,
    pub track: Track<f32>,
}

#[derive(Debug, Clone)]
pub struct AnimationClipAsset {
    pub name: String,
    pub duration: f32,
    /// Number of glTF channels in the file (for display).
    pub source_channel_count: usize,
    pub node_channels: Vec<NodeChannelAsset>,
    pub morph_channels: Vec<MorphChannelAsset>,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum AlphaMode {
    Opaque,
    Mask,
    Blend,
}

#[derive(Debug, Clone)]
pub struct TextureAsset {
    pub name: Option<String>,
    pub width: u32,
    pub height: u32,
    /// RGBA8, rows top to bottom.
    pub rgba8: Vec<u8>,
    /// True when the image could not be decoded and this is a 1x1 white stand-in (a warning in
    /// `SceneAsset::warnings` says which).
    pub fallback: bool,
    /// Why the image failed to load, when `fallback` (the same words as the warning).
    pub error: Option<String>,
    /// The sampler's wrap modes along u (S) and v (T).
    pub wrap: [TextureWrap; 2],
    /// The sampler's filters (glTF `magFilter` / `minFilter`).
    pub filter: TextureFilter,
}

/// Nearest texel or a blend of the nearest ones.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Filter {
    Nearest,
    Linear,
}

/// How a texture is filtered when magnified and minified, and between which mip levels (None:
/// no mipmaps, the sampler's `minFilter` is NEAREST or LINEAR). A filter the file leaves out is
/// the renderer's choice: linear, and linear between mip levels.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct TextureFilter {
    pub mag: Filter,
    pub min: Filter,
    pub mipmap: Option<Filter>,
}

impl Default for TextureFilter {
    fn default() -> Self {
        TextureFilter {
            mag: Filter::Linear,
            min: Filter::Linear,
            mipmap: Some(Filter::Linear),
        }
    }
}

/// A `KHR_texture_transform` on a texture reference: uv' = translation * rotation * scale * uv
/// (the extension's own GLSL; rotation in radians).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct UvTransform {
    pub offset: Vec2,
    pub rotation: f32,
    pub scale: Vec2,
}

impl Default for UvTransform {
    fn default() -> Self {
        UvTransform {
            offset: Vec2::ZERO,
            rotation: 0.0,
            scale: Vec2::ONE,
        }
    }
}

impl UvTransform {
    /// The two rows of the 2x3 matrix: u' = rows[0] . (u, v, 1), v' = rows[1] . (u, v, 1).
    pub fn rows(&self) -> [Vec3; 2] {
        let (s, c) = self.rotation.sin_cos();
        [
            Vec3::new(c * self.scale.x, -s * self.scale.y, self.offset.x),
            Vec3::new(s * self.scale.x, c * self.scale.y, self.offset.y),
        ]
    }

    pub fn apply(&self, uv: Vec2) -> Vec2 {
        let [a, b] = self.rows();
        let p = uv.extend(1.0);
        Vec2::new(a.dot(p), b.dot(p))
    }
}

/// How texture coordinates outside 0..1 wrap (glTF sampler `wrapS` / `wrapT`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum TextureWrap {
    #[default]
    Repeat,
    ClampToEdge,
    MirroredRepeat,
}

impl TextureWrap {
    /// The texel index along an axis of `size` texels for coordinate `t` (nearest texel).
    pub fn texel(self, t: f32, size: u32) -> u32 {
        let n = size.max(1) as i64;
        let i = if t.is_finite() {
            (t as f64 * n as f64).floor() as i64
        } else {
            0
        };
        let i = match self {
            TextureWrap::Repeat => i.rem_euclid(n),
            TextureWrap::ClampToEdge => i.clamp(0, n - 1),
            TextureWrap::MirroredRepeat => {
                let k = i.rem_euclid(2 * n);
                if k < n {
                    k
                } else {
                    2 * n - 1 - k
                }
            }
        };
        i as u32
    }
}

impl TextureAsset {
    /// The RGBA8 texel nearest to `uv` (glTF: u to the right, v down from the image's top).
    pub fn nearest(&self, uv: Vec2) -> [u8; 4] {
        if self.width == 0 || self.height == 0 {
            return [255; 4];
        }
        let x = self.wrap[0].texel(uv.x, self.width);
        let y = self.wrap[1].texel(uv.y, self.height);
        self.texel(x, y)
    }

    fn texel(&self, x: u32, y: u32) -> [u8; 4] {
        let i = (y as usize * self.width as usize + x as usize) * 4;
        match self.rgba8.get(i..i + 4) {
            Some(px) => [px[0], px[1], px[2], px[3]],
            None => [255; 4],
        }
    }

    /// The texture at `uv` as the sampler's magnification filter reads it (a point has no
    /// footprint to minify): the nearest texel, or the bilinear blend of the four around it
    /// (with the sampler's wrap), still gamma-encoded like a GPU's RGBA8 fetch.
    pub fn sample(&self, uv: Vec2) -> [f32; 4] {
        if self.filter.mag == Filter::Nearest || self.width == 0 || self.height == 0 {
            return self.nearest(uv).map(|c| c as f32);
        }
        // Texel centres sit at half-texel positions: blend between the two on either side.
        let at = |t: f32, n: u32| {
            let x = if t.is_finite() {
                t * n as f32 - 0.5
            } else {
                0.0
            };
            let f = x.floor();
            (f, x - f)
        };
        let (fx, tx) = at(uv.x, self.width);
        let (fy, ty) = at(uv.y, self.height);
        let texel_uv = |i: f32, n: u32| (i + 0.5) / n as f32;
        let pick = |i: f32, j: f32| {
            let x = self.wrap[0].texel(texel_uv(i, self.width), self.width);
            let y = self.wrap[1].texel(texel_uv(j, self.height), self.height);
            self.texel(x, y).map(|c| c as f32)
        };
        let (a, b, c, d) = (
            pick(fx, fy),
            pick(fx + 1.0, fy),
            pick(fx, fy + 1.0),
            pick(fx + 1.0, fy + 1.0),
        );
        std::array::from_fn(|k| {
            let top = a[k] + (b[k] - a[k]) * tx;
            let bottom = c[k] + (d[k] - c[k]) * tx;
            top + (bottom - top) * ty
        })
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum OutlineWidthMode {
    None,
    WorldCoordinates,
    ScreenCoordinates,
}

/// MToon parameters in VRM 1.0 terms (VRM 0.x values are converted as three-vrm does).
/// Colours are linear.
#[derive(Debug, Clone)]
pub struct MToonAsset {
    pub shade_color: Vec3,
    pub shade_texture: Option<usize>,
    pub shading_shift: f32,
    pub shading_toony: f32,
    pub gi_equalization: f32,
    pub matcap_factor: Vec3,
    pub matcap_texture: Option<usize>,
    pub rim_color: Vec3,
    pub rim_lighting_mix: f32,
    pub rim_fresnel_power: f32,
    pub rim_lift: f32,
    pub outline_width_mode: OutlineWidthMode,
    pub outline_width: f32,
    /// VRM 0.x `_OutlineScaledMaxDistance`: its screen outlines keep their pixel width up to
    /// this clip-space depth and thin beyond it (unused for 1.0 files).
    pub outline_scaled_max_distance: f32,
    pub outline_color: Vec3,
    pub outline_lighting_mix: f32,
    pub uv_scroll_x: f32,
    pub uv_scroll_y: f32,
    pub uv_rotation: f32,
    /// R channel adds to the shading shift, times `shading_shift_texture_scale`.
    pub shading_shift_texture: Option<usize>,
    pub shading_shift_texture_scale: f32,
    pub rim_multiply_texture: Option<usize>,
    /// G channel multiplies the outline width.
    pub outline_width_texture: Option<usize>,
    /// B channel multiplies the UV animation speeds.
    pub uv_animation_mask_texture: Option<usize>,
    /// -9..9: draw order among materials of the same alpha class.
    pub render_queue_offset: i32,
    /// Blend materials that still write depth.
    pub transparent_with_z_write: bool,
    /// True when converted from VRM 0.x `materialProperties`.
    pub from_vrm0: bool,
}

#[derive(Debug, Clone)]
pub struct MaterialAsset {
    pub name: Option<String>,
    /// Linear RGBA.
    pub base_color: Vec4,
    pub base_color_texture: Option<usize>,
    /// `KHR_texture_transform` of the base-colour texture (MToon applies it to all its
    /// textures but the matcap).
    pub base_color_transform: UvTransform,
    pub alpha_mode: AlphaMode,
    pub alpha_cutoff: f32,
    pub double_sided: bool,
    pub emissive: Vec3,
    pub emissive_texture: Option<usize>,
    /// Tangent-space normal map and its scale (glTF core `normalTexture`).
    pub normal_texture: Option<usize>,
    pub normal_scale: f32,
    /// glTF metallic-roughness: the factors (1.0 each when the file leaves them out, as the
    /// glTF spec says) and the texture whose B channel scales metalness and G roughness.
    pub metallic: f32,
    pub roughness: f32,
    pub metallic_roughness_texture: Option<usize>,
    pub unlit: bool,
    pub mtoon: Option<MToonAsset>,
}

#[derive(Debug, Clone)]
pub struct MorphBind {
    pub node: usize,
    pub mesh: usize,
    pub target: usize,
    /// 0..1
    pub weight: f32,
}

/// How an expression holds back the blink, look-at or mouth expressions while it shows
/// (VRM 1.0 `overrideBlink` / `overrideLookAt` / `overrideMouth`).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub enum ExpressionOverride {
    #[default]
    None,
    /// Any weight above 0 holds them back fully.
    Block,
    /// Holds them back by its weight.
    Blend,
}

/// Which MToon colour a material colour bind moves (VRM 1.0 `materialColorBinds[].type`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum MaterialColorType {
    Color,
    EmissionColor,
    ShadeColor,
    MatcapColor,
    RimColor,
    OutlineColor,
}

/// A material colour an expression moves towards `target` (linear RGBA; only `Color` uses A).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct MaterialColorBind {
    pub material: usize,
    pub kind: MaterialColorType,
    pub target: Vec4,
}

/// The texture scale and offset an expression moves a material's textures towards.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct TextureTransformBind {
    pub material: usize,
    pub scale: Vec2,
    pub offset: Vec2,
}

#[derive(Debug, Clone, Default)]
pub struct ExpressionAsset {
    /// VRM 1.0 name (`blink`, `happy`, `aa`, ...) or the custom name.
    pub name: String,
    pub is_preset: bool,
    pub is_binary: bool,
    pub binds: Vec<MorphBind>,
    pub override_blink: ExpressionOverride,
    pub override_look_at: ExpressionOverride,
    pub override_mouth: ExpressionOverride,
    pub material_color_binds: Vec<MaterialColorBind>,
    pub texture_transform_binds: Vec<TextureTransformBind>,
}

#[derive(Debug, Clone)]
pub struct VrmAsset {
    /// 0 for VRM 0.x, 1 for VRM 1.0.
    pub spec_major: u32,
    pub title: Option<String>,
    pub author: Option<String>,
    pub license: Option<String>,
    /// VRM 1.0 humanoid bone name (`hips`, `leftUpperArm`, ...) to node index.
    pub humanoid: BTreeMap<String, usize>,
    pub expressions: Vec<ExpressionAsset>,
    /// Spring bones (`VRMC_springBone` or VRM 0.x `secondaryAnimation`); empty when none.
    pub springs: super::vrm_spring::SpringBoneAsset,
    /// VRM 1.0 `lookAt` or VRM 0.x `firstPerson` look-at settings (None: the file has none).
    pub look_at: Option<super::vrm_look_at::LookAtAsset>,
    /// `VRMC_node_constraint` of the nodes, in evaluation order; empty when none.
    pub constraints: Vec<super::vrm_constraint::NodeConstraint>,
    /// First-person mesh annotations (for `throng inspect`).
    pub first_person: Vec<super::vrm_first_person::FirstPersonAnnotation>,
}

impl VrmAsset {
    pub fn expression(&self, name: &str) -> Option<&ExpressionAsset> {
        self.expressions
            .iter()
            .find(|e| e.name == name)
            .or_else(|| {
                self.expressions
                    .iter()
                    .find(|e| e.name.eq_ignore_ascii_case(name))
            })
    }
}

/// A whole imported model. Immutable after import; `id` is unique per import so runtime objects
/// can check they were built for this very scene.
#[derive(Debug, Clone)]
pub struct SceneAsset {
    pub id: u64,
    pub source: String,
    pub nodes: Vec<NodeAsset>,
    /// Nodes without parent, in file order.
    pub roots: Vec<usize>,
    pub meshes: Vec<MeshAsset>,
    pub skins: Vec<SkinAsset>,
    pub animations: Vec<AnimationClipAsset>,
    pub materials: Vec<MaterialAsset>,
    pub textures: Vec<TextureAsset>,
    pub vrm: Option<VrmAsset>,
    /// Problems the import worked around (an undecodable image became white, ...): the file
    /// still loads, and the game shows these.
    pub warnings: Vec<String>,
}

impl SceneAsset {
    /// Clip by index (`"3"`) or exact name.
    pub fn find_clip(&self, key: &str) -> Option<usize> {
        if let Ok(i) = key.parse::<usize>() {
            if i < self.animations.len() {
                return Some(i);
            }
        }
        self.animations.iter().position(|c| c.name == key)
    }

    /// Node by index or name (first match: names are not unique in real files).
    pub fn find_node(&self, key: &str) -> Option<usize> {
        if let Ok(i) = key.parse::<usize>() {
            if i < self.nodes.len() {
                return Some(i);
            }
        }
        self.nodes
            .iter()
            .position(|n| n.name.as_deref() == Some(key))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Two texels side by side: black, white.
    fn two_texels(mag: Filter, wrap: TextureWrap) -> TextureAsset {
        TextureAsset {
            name: None,
            width: 2,
            height: 1,
            rgba8: vec![0, 0, 0, 255, 255, 255, 255, 255],
            fallback: false,
            error: None,
            wrap: [wrap; 2],
            filter: TextureFilter {
                mag,
                ..Default::default()
            },
        }
    }

    #[test]
    fn sampling_follows_the_magnification_filter() {
        let nearest = two_texels(Filter::Nearest, TextureWrap::ClampToEdge);
        let linear = two_texels(Filter::Linear, TextureWrap::ClampToEdge);
        // Between the two texel centres (0.25 and 0.75), a quarter of the way.
        let uv = Vec2::new(0.375, 0.5);
        assert_eq!(nearest.sample(uv)[0], 0.0);
        assert_approx!(linear.sample(uv)[0], 63.75, 1e-3);
        // On a texel centre both read the texel.
        assert_approx!(linear.sample(Vec2::new(0.75, 0.5))[0], 255.0, 1e-3);
        // Left of the first centre: clamped, or wrapped round to the white texel.
        assert_approx!(linear.sample(Vec2::new(0.0, 0.5))[0], 0.0, 1e-3);
        let repeat = two_texels(Filter::Linear, TextureWrap::Repeat);
        assert_approx!(repeat.sample(Vec2::new(0.0, 0.5))[0], 127.5, 1e-3);
    }

    #[test]
    fn texture_transform_composes_translation_rotation_scale() {
        assert_eq!(
            UvTransform::default().apply(Vec2::new(0.3, 0.7)),
            Vec2::new(0.3, 0.7)
        );
        let t = UvTransform {
            offset: Vec2::new(0.5, 0.0),
            rotation: std::f32::consts::FRAC_PI_2,
            scale: Vec2::new(2.0, 1.0),
        };
        // Scale (0.5, 0) -> (1, 0); rotate a quarter turn -> (0, 1); offset -> (0.5, 1).
        assert_approx!(t.apply(Vec2::new(0.5, 0.0)), Vec2::new(0.5, 1.0), 1e-6);
        // (0, 1) scales to (0, 1), turns to (-1, 0), moves to (-0.5, 0).
        assert_approx!(t.apply(Vec2::new(0.0, 1.0)), Vec2::new(-0.5, 0.0), 1e-6);
    }
}
