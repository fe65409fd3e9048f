//! The errors a macro call collects, so that all of them are reported at
//! once; as serde_derive's `Ctxt`, they cannot be dropped unreported.

/// Collects errors so that all of them are reported at once. It must be
/// consumed by [`Errors::finish`]: dropping it unfinished is a bug in the
/// macro (errors that would go unreported), and panics.
#[derive(Default)]
pub(crate) struct Errors {
    all: Option<syn::Error>,
    finished: bool,
}

impl Errors {
    pub(crate) fn push(&mut self, e: syn::Error) {
        match &mut self.all {
            Some(all) => all.combine(e),
            None => self.all = Some(e),
        }
    }

    /// The errors collected, combined into one, if any.
    pub(crate) fn finish(mut self) -> syn::Result<()> {
        self.finished = true;
        self.all.take().map_or(Ok(()), Err)
    }
}

impl Drop for Errors {
    fn drop(&mut self) {
        if !self.finished && !std::thread::panicking() {
            panic!("codegen: collected errors dropped without Errors::finish");
        }
    }
}
