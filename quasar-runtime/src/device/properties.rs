//! Hardware parameters of a device, as `gpu_feature(name)` reports them (manual §9.11), and
//! as `opt_block_cnt` uses them to count the blocks that can be active at once.

/// The parameters of manual §9.11, one field per feature name.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct DeviceProperties {
    /// Streaming multiprocessors (`num_sm`).
    pub num_sm: usize,
    /// `major*100 + minor*10` of the compute capability (`cuda_arch`); 0 for the CPU.
    pub cuda_arch: usize,
    /// 32-bit registers available to one block (`max_reg_per_block`).
    pub max_reg_per_block: usize,
    /// Shared memory one block may use without opting in, in bytes
    /// (`max_shared_mem_per_block`).
    pub max_shared_mem_per_block: usize,
    /// Shared memory of one multiprocessor, in bytes (`max_shared_mem_per_sm`).
    pub max_shared_mem_per_sm: usize,
    /// Constant memory, in bytes (`max_constant_memory`).
    pub max_constant_memory: usize,
    /// Threads per warp (`warp_size`).
    pub warp_size: usize,
    /// Threads per block (`max_threads_per_block`).
    pub max_threads_per_block: usize,
    /// Resident warps per multiprocessor (`max_warps_per_sm`).
    pub max_warps_per_sm: usize,
    /// Resident blocks per multiprocessor (`max_blocks_per_sm`).
    pub max_blocks_per_sm: usize,
}

/// What the CPU reports for a resource it does not limit (the largest `int`).
pub const UNLIMITED: usize = i32::MAX as usize;

impl DeviceProperties {
    /// The feature names of manual §9.11, in its order.
    pub const FEATURES: [&'static str; 10] = [
        "num_sm",
        "cuda_arch",
        "max_reg_per_block",
        "max_shared_mem_per_block",
        "max_shared_mem_per_sm",
        "max_constant_memory",
        "warp_size",
        "max_threads_per_block",
        "max_warps_per_sm",
        "max_blocks_per_sm",
    ];

    /// An NVIDIA A100 (compute capability 8.0, the `.target sm_80` of the compiler's PTX):
    /// what a GPU back end that does not query hardware (the simulated device) reports.
    pub const SM_80: DeviceProperties = DeviceProperties {
        num_sm: 108,
        cuda_arch: 800,
        max_reg_per_block: 65536,
        max_shared_mem_per_block: 48 * 1024,
        max_shared_mem_per_sm: 164 * 1024,
        max_constant_memory: 64 * 1024,
        warp_size: 32,
        max_threads_per_block: 1024,
        max_warps_per_sm: 64,
        max_blocks_per_sm: 32,
    };

    /// The CPU as a device: `workers` threads, each running one block at a time (a
    /// "multiprocessor" holding one block), with the CPU back end's warp size (32, the
    /// `warpsize` kernels see) and its 1024-thread limit for block-sensitive kernels; memory it
    /// does not limit (shared, registers, constant) is [`UNLIMITED`], and `cuda_arch` is 0.
    pub fn cpu(workers: usize) -> DeviceProperties {
        DeviceProperties {
            num_sm: workers.max(1),
            cuda_arch: 0,
            max_reg_per_block: UNLIMITED,
            max_shared_mem_per_block: UNLIMITED,
            max_shared_mem_per_sm: UNLIMITED,
            max_constant_memory: UNLIMITED,
            warp_size: 32,
            max_threads_per_block: 1024,
            max_warps_per_sm: 1024 / 32,
            max_blocks_per_sm: 1,
        }
    }

    /// The value of feature `name`, if it is one of [`FEATURES`](Self::FEATURES).
    pub fn feature(&self, name: &str) -> Option<usize> {
        Some(match name {
            "num_sm" => self.num_sm,
            "cuda_arch" => self.cuda_arch,
            "max_reg_per_block" => self.max_reg_per_block,
            "max_shared_mem_per_block" => self.max_shared_mem_per_block,
            "max_shared_mem_per_sm" => self.max_shared_mem_per_sm,
            "max_constant_memory" => self.max_constant_memory,
            "warp_size" => self.warp_size,
            "max_threads_per_block" => self.max_threads_per_block,
            "max_warps_per_sm" => self.max_warps_per_sm,
            "max_blocks_per_sm" => self.max_blocks_per_sm,
            _ => return None,
        })
    }

    /// How many blocks of `threads` threads using `shared` bytes of shared memory each can be
    /// resident on one multiprocessor (registers are not counted: a kernel's register use is
    /// not known here). 0 when one such block does not fit at all.
    pub fn blocks_per_sm(&self, threads: usize, shared: usize) -> usize {
        if threads == 0
            || threads > self.max_threads_per_block
            || shared > self.max_shared_mem_per_block
        {
            return 0;
        }
        let warps = threads.div_ceil(self.warp_size.max(1));
        let by_warps = self.max_warps_per_sm / warps;
        let by_shared = self.max_shared_mem_per_sm.checked_div(shared).unwrap_or(usize::MAX);
        self.max_blocks_per_sm.min(by_warps).min(by_shared)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_feature_name_has_a_value() {
        let p = DeviceProperties::SM_80;
        for f in DeviceProperties::FEATURES {
            assert!(p.feature(f).is_some(), "{f}");
        }
        assert_eq!(p.feature("cuda_arch"), Some(800));
        assert_eq!(p.feature("speed"), None);
        let c = DeviceProperties::cpu(6);
        assert_eq!((c.num_sm, c.cuda_arch, c.max_blocks_per_sm), (6, 0, 1));
        assert_eq!(c.max_warps_per_sm * c.warp_size, c.max_threads_per_block);
    }

    #[test]
    fn occupancy_is_limited_by_warps_blocks_and_shared_memory() {
        let p = DeviceProperties::SM_80;
        // 2048 threads per SM: two blocks of 1024, eight of 256, never more than 32.
        assert_eq!(p.blocks_per_sm(1024, 0), 2);
        assert_eq!(p.blocks_per_sm(256, 0), 8);
        assert_eq!(p.blocks_per_sm(32, 0), 32);
        // A partial warp occupies a whole one: 48 threads are two warps.
        assert_eq!(p.blocks_per_sm(48, 0), 32);
        assert_eq!(p.blocks_per_sm(96, 0), 21);
        // 40 KiB of shared memory each: four fit in 164 KiB.
        assert_eq!(p.blocks_per_sm(128, 40 * 1024), 4);
        assert_eq!(p.blocks_per_sm(2048, 0), 0);
        assert_eq!(p.blocks_per_sm(64, 64 * 1024), 0);
        assert_eq!(DeviceProperties::cpu(4).blocks_per_sm(1024, 1 << 20), 1);
    }
}
