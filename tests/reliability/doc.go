// Package reliability holds the tests of mlxbuild's promises about
// interruption (docs/reliability.md): signals sent to the compiled mlxbuild
// binary during a build stop it with every program it started, and say
// "interrupted". The kill -9 campaign over the bundled example is the
// program in ./kill9.
package reliability
