// Package bundle makes a relocatable release bundle from programs linked
// against a build (bin/, lib/, include/ and manifest.json, every run path
// relative to the program), and checks on a target machine that a bundle
// can run there. Make runs on the build machine and needs patchelf;
// Check needs neither the build nor a toolchain. docs/bundle.md is the
// user's side of it.
package bundle
