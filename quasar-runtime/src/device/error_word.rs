//! Per-launch error words: a kernel whose PTX can fail at run time (`'checked` accesses,
//! `error`, `assert`) reports its first failing site in a small zeroed device buffer passed as
//! its last parameter ([`crate::ptx::pack_params`]), and the runtime reads it once the launch
//! has finished. Each launch has its own word, so that concurrent launches of one kernel never
//! see each other's errors; words are kept in a free list of the device, so a launch costs no
//! allocation and no synchronisation beyond the wait that a checked launch does anyway.

use super::{lock, GpuDevice};
use crate::device::{DevPtr, DeviceLaunch, Fence};
use crate::error::Result;
use crate::ptx::{decode_error_word, ErrorWord, ERROR_WORDS};

/// The size of one error word.
const BYTES: usize = 4 * ERROR_WORDS;

/// A zeroed error word lent to one launch.
pub(crate) struct ErrorSlot {
    /// Its device address.
    pub ptr: DevPtr,
    class: usize,
    /// The zeroing the launch must wait for (a new word, or one reset after a failure).
    pub zeroed: Option<Fence>,
}

impl GpuDevice {
    /// An error word for one launch: a free one, or a new zeroed block of the pool.
    pub(crate) fn take_error_word(&self) -> Result<ErrorSlot> {
        if let Some(s) = lock(&self.error_words).pop() {
            return Ok(s);
        }
        let (ptr, class) = self.alloc(BYTES)?;
        match self.backend.zero(ptr, BYTES, &[]) {
            Ok(z) => Ok(ErrorSlot { ptr, class, zeroed: Some(z) }),
            Err(e) => {
                self.release(ptr, class);
                Err(e)
            }
        }
    }

    /// Gives back the word of a launch that was not submitted (still zero).
    pub(crate) fn return_error_word(&self, slot: ErrorSlot) {
        lock(&self.error_words).push(slot);
    }

    /// After launch `l` (its `fence`): the error it reported in `slot`, if any, as the CPU
    /// path gives it. The word is reset and reused; if it cannot be read, its block goes back
    /// to the pool instead.
    pub(crate) fn check_error_word(
        &self,
        mut slot: ErrorSlot,
        l: &DeviceLaunch<'_>,
        fence: &Fence,
    ) -> Result<()> {
        let mut word = [0u32; ERROR_WORDS];
        let read = fence.wait().and_then(|()| {
            // SAFETY: `word` has `BYTES` bytes and outlives the copy, which we wait for; the
            // kernel writing the word has finished.
            unsafe { self.backend.download(word.as_mut_ptr() as *mut u8, slot.ptr, BYTES, &[]) }?
                .wait()
        });
        if let Err(e) = read {
            // The launch is over (its fence completed, with or without error), so nothing
            // uses the block.
            self.release(slot.ptr, slot.class);
            return Err(e);
        }
        match decode_error_word(l.kernel, &word, l.args) {
            ErrorWord::Clear => {
                slot.zeroed = None;
                self.return_error_word(slot);
                Ok(())
            }
            ErrorWord::Failed(e) => {
                match self.backend.zero(slot.ptr, BYTES, &[]) {
                    Ok(z) => {
                        slot.zeroed = Some(z);
                        self.return_error_word(slot);
                    }
                    Err(_) => self.release(slot.ptr, slot.class),
                }
                Err(e)
            }
        }
    }

    /// The free error words' blocks, for the pool (when the device closes).
    pub(super) fn drain_error_words(&self) -> Vec<(DevPtr, usize)> {
        lock(&self.error_words).drain(..).map(|s| (s.ptr, s.class)).collect()
    }
}
