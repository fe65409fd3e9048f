//! A crate's front door: a crate this workspace did not write taken in,
//! from a spec (`NAME@VERSION` or a path) or a revision's exported tree,
//! to its variants made and its contenders ready to build. `take.rs`
//! finds it, copies it as published, asks the compiler which type to
//! measure and scans its attributes ([`take::take`] gives a
//! [`take::Taken`]); `make.rs` builds it as published to find its hot
//! path, makes the variants chosen, and gives their contenders
//! ([`make::make`] gives a [`make::Made`]). `compare --crate` runs both;
//! `gate --crate` takes its base revision's exported tree in where it is
//! ([`take::in_place`]) and builds its two sides over the same kind of
//! shim tree ([`make::shim_tree`]).

pub mod make;
pub mod take;
