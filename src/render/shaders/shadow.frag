#version 330
// Depth-only pass: the rasteriser writes depth, there is no colour attachment. The crowd's
// depth programs get the LOD cross-fade inserted (lod_fade.glsl), so a fading person's shadow
// fades with them.
void main() {
#ifdef LOD_FADE
    if (lod_faded_out()) discard;
#endif
}
