//! The MToon CPU reference (`hero::mtoon`, mirrored by `render/shaders/mtoon.frag`) against
//! values worked out by hand from the MToon 1.0 formulas:
//! `shading = linearstep(-1 + toony, 1 - toony, N·L + shift + shiftTex·scale) · shadow`,
//! `colour = mix(shade, lit, shading) · light + gi(n) · lit + rim + emissive`,
//! `rim = (matcap + rimColor · saturate(1 - N·V + lift)^power) · rimTex · mix(1, lighting, mix)`.

use glam::{Vec2, Vec3, Vec4};
use throng::assert_approx;
use throng::asset::{AlphaMode, OutlineWidthMode};
use throng::hero::mtoon::{
    outline_color, outline_offset, shade, MToonParams, MToonTextures, ShadeInput,
};

fn params(toony: f32, shift: f32) -> MToonParams {
    MToonParams {
        name: "test".into(),
        lit_color: Vec4::ONE,
        shade_color: Vec3::ONE,
        shading_shift: shift,
        shading_shift_texture_scale: 0.4,
        shading_toony: toony,
        gi_equalization: 0.0,
        emissive: Vec3::ZERO,
        normal_scale: 1.0,
        matcap_factor: Vec3::ZERO,
        rim_color: Vec3::ZERO,
        rim_fresnel_power: 1.0,
        rim_lift: 0.0,
        rim_lighting_mix: 0.0,
        outline_mode: OutlineWidthMode::None,
        outline_width: 0.0,
        outline_v0_max_distance: None,
        outline_color: Vec3::ZERO,
        outline_lighting_mix: 1.0,
        uv_scroll: Vec2::ZERO,
        uv_rotation: 0.0,
        alpha_mode: AlphaMode::Opaque,
        alpha_cutoff: 0.5,
        double_sided: false,
        transparent_with_z_write: false,
        render_queue_offset: 0,
        textures: MToonTextures::default(),
        uv_transform: Default::default(),
        pbr: None,
    }
}

/// A light from straight above; the normal tilted so that N·L is `ndl` (in the XY plane).
fn input(ndl: f32) -> ShadeInput {
    let n = Vec3::new((1.0 - ndl * ndl).sqrt(), ndl, 0.0);
    ShadeInput {
        normal: n,
        to_light: Vec3::Y,
        to_eye: n,
        light_color: Vec3::ONE,
        shadow: 1.0,
        ambient: Vec3::ZERO,
        lit: Vec3::new(0.8, 0.6, 0.4),
        shade: Vec3::new(0.2, 0.1, 0.3),
        shift_texture: 0.0,
        matcap_texture: Vec3::ONE,
        rim_texture: Vec3::ONE,
        emissive: Vec3::ZERO,
    }
}

fn close(a: Vec3, b: Vec3) -> bool {
    (a - b).abs().max_element() < 1e-5
}

#[test]
fn toon_ramp_shift_and_shade_mix() {
    // (toony, shift, N·L, shift texture, shadow, expected colour)
    let lit = Vec3::new(0.8, 0.6, 0.4);
    let shade_c = Vec3::new(0.2, 0.1, 0.3);
    let table = [
        // Well inside the lit side of a sharp ramp (-0.1..0.1): the lit colour.
        (0.9, 0.0, 0.5, 0.0, 1.0, lit),
        // 0.05 on a -0.1..0.1 ramp is 3/4 lit: 0.25·shade + 0.75·lit.
        (0.9, 0.0, 0.05, 0.0, 1.0, Vec3::new(0.65, 0.475, 0.375)),
        // Shift -0.2 moves 0.05 to -0.15, below the ramp: the shade colour.
        (0.9, -0.2, 0.05, 0.0, 1.0, shade_c),
        // Soft (toony 0): the ramp spans -1..1, so N·L = 0 is half way.
        (0.0, 0.0, 0.0, 0.0, 1.0, Vec3::new(0.5, 0.35, 0.35)),
        // Toony 0.5: ramp -0.5..0.5, N·L 0.25 is 3/4.
        (0.5, 0.0, 0.25, 0.0, 1.0, Vec3::new(0.65, 0.475, 0.375)),
        // Fully lit by N·L but in the sun's shadow: the shade colour.
        (0.9, 0.0, 1.0, 0.0, 0.0, shade_c),
        // Half shadow (a PCF edge) on a lit surface: half way.
        (0.9, 0.0, 1.0, 0.0, 0.5, Vec3::new(0.5, 0.35, 0.35)),
        // Shift texture 0.5 × scale 0.4 = +0.2 lifts -0.15 to 0.05: 3/4 lit again.
        (0.9, 0.0, -0.15, 0.5, 1.0, Vec3::new(0.65, 0.475, 0.375)),
    ];
    for (k, (toony, shift, ndl, tex, shadow, want)) in table.into_iter().enumerate() {
        let p = params(toony, shift);
        let mut i = input(ndl);
        i.shift_texture = tex;
        i.shadow = shadow;
        let got = shade(&p, &i);
        assert!(close(got, want), "row {k}: {got} != {want}");
    }
}

#[test]
fn light_colour_gi_and_equalization() {
    let mut p = params(0.9, 0.0);
    let mut i = input(0.5);
    // The lit colour times a warm light.
    i.light_color = Vec3::new(2.0, 1.0, 0.5);
    assert!(close(shade(&p, &i), Vec3::new(1.6, 0.6, 0.2)));
    i.light_color = Vec3::ZERO;
    i.ambient = Vec3::splat(0.4);
    // Facing up: rawGi = ambient · 1.0 = 0.4, times lit.
    i.normal = Vec3::Y;
    assert!(close(shade(&p, &i), lit() * 0.4));
    // Facing down: rawGi = ambient · 0.55 = 0.22.
    i.normal = -Vec3::Y;
    assert!(close(shade(&p, &i), lit() * 0.22));
    // Equalised: the up/down average 0.31 whatever the normal.
    p.gi_equalization = 1.0;
    assert!(close(shade(&p, &i), lit() * 0.31));
    i.normal = Vec3::X;
    assert!(close(shade(&p, &i), lit() * 0.31));
    // Half equalised, sideways: rawGi(x) = 0.4 · 0.775 = 0.31 too, so a mix of equal values.
    p.gi_equalization = 0.5;
    assert!(close(shade(&p, &i), lit() * 0.31));
}

fn lit() -> Vec3 {
    Vec3::new(0.8, 0.6, 0.4)
}

#[test]
fn parametric_rim_lift_power_and_lighting_mix() {
    let mut p = params(0.9, 0.0);
    p.rim_color = Vec3::new(1.0, 0.0, 0.0);
    p.rim_fresnel_power = 2.0;
    let mut i = input(0.5);
    i.light_color = Vec3::ZERO;
    // N·V = 0.5: (1 - 0.5)² = 0.25 of red on top of the (black-lit) shade.
    let n = i.normal;
    let side = Vec3::new(-n.y, n.x, 0.0);
    i.to_eye = (n * 0.5 + side * 0.75f32.sqrt()).normalize();
    let base = i.shade * 0.0;
    assert!(close(shade(&p, &i), base + Vec3::new(0.25, 0.0, 0.0)));
    // Lift 0.3: (0.8)² = 0.64.
    p.rim_lift = 0.3;
    assert!(close(shade(&p, &i), Vec3::new(0.64, 0.0, 0.0)));
    // Lighting mix 1 under a light of 2 (no ambient): the rim doubles.
    p.rim_lift = 0.0;
    p.rim_lighting_mix = 1.0;
    i.light_color = Vec3::splat(2.0);
    i.shadow = 0.0; // direct term = shade · light = (0.4, 0.2, 0.6)
    assert!(close(shade(&p, &i), Vec3::new(0.4 + 0.5, 0.2, 0.6)));
    // The rim mask texture scales it.
    i.rim_texture = Vec3::splat(0.5);
    assert!(close(shade(&p, &i), Vec3::new(0.4 + 0.25, 0.2, 0.6)));
    // Matcap adds factor × texture inside the same mask.
    p.matcap_factor = Vec3::new(0.0, 1.0, 0.0);
    i.matcap_texture = Vec3::splat(0.2);
    assert!(close(shade(&p, &i), Vec3::new(0.4 + 0.25, 0.2 + 0.2, 0.6)));
}

#[test]
fn outline_colour_and_width() {
    let mut p = params(0.9, 0.0);
    p.outline_color = Vec3::new(0.0, 1.0, 0.0);
    p.outline_lighting_mix = 0.5;
    // (0,1,0) · mix(1, (0.4, 0.2, 0.6), 0.5) = (0, 0.6, 0).
    assert!(close(
        outline_color(&p, Vec3::new(0.4, 0.2, 0.6)),
        Vec3::new(0.0, 0.6, 0.0)
    ));
    p.outline_mode = OutlineWidthMode::ScreenCoordinates;
    p.outline_width = 0.01;
    // 1 % of a 90° view's height at 10 m: 0.01 · 2 · 10 · tan 45° = 0.2 m; the width texture halves it.
    let fov = std::f32::consts::FRAC_PI_2;
    assert_approx!(outline_offset(&p, 10.0, fov, 1.0), 0.2, 1e-6);
    assert_approx!(outline_offset(&p, 10.0, fov, 0.5), 0.1, 1e-6);
    p.outline_mode = OutlineWidthMode::WorldCoordinates;
    assert_approx!(outline_offset(&p, 10.0, fov, 1.0), 0.01, 1e-7);
    p.outline_mode = OutlineWidthMode::None;
    assert_eq!(outline_offset(&p, 10.0, fov, 1.0), 0.0);
}
