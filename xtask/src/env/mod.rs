//! The environment of a run: the workspace and its inputs, the tree an
//! artifact is built from, a revision of another repository exported
//! (`revision.rs`), the locked work directory, the files a command may
//! write, the compiler flags of a flag set (`flags.rs`) and of the profile
//! (`profile.rs`), the contexts a string lands in (escaping), fault injection,
//! the C libraries a peer may come from (`library.rs`), and git (`git.rs`, the one way it is run).

pub mod deadline;
pub mod escape;
pub mod fault;
pub mod flags;
pub mod git;
pub mod library;
pub mod outputs;
pub mod profile;
pub mod revision;
pub mod subject;
pub mod tree;
pub mod workdir;
pub mod workspace;
