#version 330
// Depth-only pass: the rasteriser writes depth, there is no colour attachment.
void main() {}
