//! The special parameters of a kernel (manual §2.4.1, §9.8): what `parallel_do` supplies
//! instead of an argument. One list, read by the type checker and both back ends.

use crate::sema::types::{ThreadGroup, Type};

/// A special kernel parameter, recognised by its name in a `__kernel__` parameter list.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Special {
    /// `pos`: the thread's position in the launch.
    Pos,
    /// `blkpos`: the position inside the block.
    BlkPos,
    /// `blkidx`: the block's index.
    BlkIdx,
    /// `blkdim`: the block's dimensions.
    BlkDim,
    /// `blkcnt`: the number of blocks.
    BlkCnt,
    /// `warpsize` (also spelled `warpSize`): the threads of a warp, an `int`.
    WarpSize,
    /// `coalesced_threads`: the active threads of the warp (this and the three below are
    /// the cooperative groups of §9.8, of type `thread_block`).
    CoalescedThreads,
    /// `this_thread_block`: the threads of the block.
    ThisThreadBlock,
    /// `this_grid`: every thread of the launch.
    ThisGrid,
    /// `this_multi_grid`: every thread of a multi-GPU launch.
    ThisMultiGrid,
}

impl Special {
    /// Every special parameter.
    pub const ALL: [Special; 10] = [
        Special::Pos,
        Special::BlkPos,
        Special::BlkIdx,
        Special::BlkDim,
        Special::BlkCnt,
        Special::WarpSize,
        Special::CoalescedThreads,
        Special::ThisThreadBlock,
        Special::ThisGrid,
        Special::ThisMultiGrid,
    ];

    /// The special parameter a kernel parameter called `name` is, if any.
    pub fn from_name(name: &str) -> Option<Special> {
        Some(match name {
            "pos" => Special::Pos,
            "blkpos" => Special::BlkPos,
            "blkidx" => Special::BlkIdx,
            "blkdim" => Special::BlkDim,
            "blkcnt" => Special::BlkCnt,
            "warpsize" | "warpSize" => Special::WarpSize,
            "coalesced_threads" => Special::CoalescedThreads,
            "this_thread_block" => Special::ThisThreadBlock,
            "this_grid" => Special::ThisGrid,
            "this_multi_grid" => Special::ThisMultiGrid,
            _ => return None,
        })
    }

    /// The name as the manual writes it.
    pub const fn name(self) -> &'static str {
        match self {
            Special::Pos => "pos",
            Special::BlkPos => "blkpos",
            Special::BlkIdx => "blkidx",
            Special::BlkDim => "blkdim",
            Special::BlkCnt => "blkcnt",
            Special::WarpSize => "warpsize",
            Special::CoalescedThreads => "coalesced_threads",
            Special::ThisThreadBlock => "this_thread_block",
            Special::ThisGrid => "this_grid",
            Special::ThisMultiGrid => "this_multi_grid",
        }
    }

    /// One component per launch dimension (`int` or `ivecN` after the launch's `dims`).
    pub const fn is_geometry(self) -> bool {
        matches!(
            self,
            Special::Pos | Special::BlkPos | Special::BlkIdx | Special::BlkDim | Special::BlkCnt
        )
    }

    /// Depends on how the launch is cut into blocks (the CPU must then use GPU-like blocks).
    pub const fn is_block_geometry(self) -> bool {
        matches!(self, Special::BlkPos | Special::BlkIdx | Special::BlkDim | Special::BlkCnt)
    }

    /// The cooperative group of a `thread_block` parameter.
    pub const fn thread_group(self) -> Option<ThreadGroup> {
        match self {
            Special::CoalescedThreads => Some(ThreadGroup::Coalesced),
            Special::ThisThreadBlock => Some(ThreadGroup::Block),
            Special::ThisGrid => Some(ThreadGroup::Grid),
            Special::ThisMultiGrid => Some(ThreadGroup::MultiGrid),
            _ => None,
        }
    }

    /// The parameter's type, where `pos_type` is the type of `pos` for this launch.
    pub fn param_type(self, pos_type: &Type) -> Type {
        match self {
            Special::WarpSize => Type::INT,
            s => match s.thread_group() {
                Some(g) => Type::ThreadBlock(g),
                None => pos_type.clone(),
            },
        }
    }
}

impl std::fmt::Display for Special {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.name())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn both_spellings_of_warpsize_are_one_parameter() {
        assert_eq!(Special::from_name("warpSize"), Some(Special::WarpSize));
        assert_eq!(Special::from_name("warpsize"), Some(Special::WarpSize));
        assert_eq!(Special::from_name("position"), None);
        for s in Special::ALL {
            assert_eq!(Special::from_name(s.name()), Some(s));
        }
        assert_eq!(Special::WarpSize.param_type(&Type::INT), Type::INT);
        assert_eq!(Special::ThisGrid.param_type(&Type::INT), Type::ThreadBlock(ThreadGroup::Grid));
    }
}
