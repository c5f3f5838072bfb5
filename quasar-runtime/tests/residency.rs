//! Property test of the residency state machine: any sequence of host writes, kernel reads and
//! writes on either device (the CPU or a simulated GPU with separate memory, asynchronous
//! streams and random delays), aliasing, deep copies, drops and host reads gives the same data
//! as a host-only model, also under memory pressure (forced eviction), and the device never
//! sees memory freed while in use.

mod common;

use common::{jittery, sim_runtime, ADD_SCALAR, AXPY, COPY};
use proptest::prelude::*;
use quasar_runtime::{size_class, Access, Array, SchedMode};

const HANDLES: usize = 5;

#[derive(Clone, Copy, Debug)]
enum Dev {
    Cpu,
    Gpu,
}

impl Dev {
    fn mode(self) -> SchedMode {
        match self {
            Dev::Cpu => SchedMode::Cpu,
            Dev::Gpu => SchedMode::Gpu,
        }
    }
}

#[derive(Clone, Debug)]
enum Op {
    HostWrite {
        a: usize,
        i: usize,
        v: i32,
    },
    HostRead {
        a: usize,
    },
    HostGet {
        a: usize,
        i: usize,
    },
    AddScalar {
        a: usize,
        v: i32,
        dev: Dev,
    },
    Copy {
        src: usize,
        dst: usize,
        dev: Dev,
    },
    Axpy {
        x: usize,
        y: usize,
        k: i32,
        dev: Dev,
    },
    /// `a = copy(a)`: a deep copy; the old buffer may be dropped with work in flight.
    Replace {
        a: usize,
    },
    /// `b = a`: both handles share the elements.
    Share {
        a: usize,
        b: usize,
    },
    Sync {
        a: usize,
    },
}

fn dev() -> impl Strategy<Value = Dev> {
    prop_oneof![Just(Dev::Cpu), Just(Dev::Gpu), Just(Dev::Gpu)]
}

fn op() -> impl Strategy<Value = Op> {
    let h = 0..HANDLES;
    prop_oneof![
        (h.clone(), any::<usize>(), -100..100i32).prop_map(|(a, i, v)| Op::HostWrite { a, i, v }),
        h.clone().prop_map(|a| Op::HostRead { a }),
        (h.clone(), any::<usize>()).prop_map(|(a, i)| Op::HostGet { a, i }),
        (h.clone(), -5..5i32, dev()).prop_map(|(a, v, dev)| Op::AddScalar { a, v, dev }),
        (h.clone(), h.clone(), dev()).prop_map(|(src, dst, dev)| Op::Copy { src, dst, dev }),
        (h.clone(), h.clone(), -3..3i32, dev()).prop_map(|(x, y, k, dev)| Op::Axpy {
            x,
            y,
            k,
            dev
        }),
        h.clone().prop_map(|a| Op::Replace { a }),
        (h.clone(), h.clone()).prop_map(|(a, b)| Op::Share { a, b }),
        h.prop_map(|a| Op::Sync { a }),
    ]
}

/// How device memory is constrained.
#[derive(Clone, Copy, Debug)]
enum Pressure {
    None,
    /// The pool may hold this many array blocks.
    PoolLimit(usize),
    /// The device itself has room for this many array blocks.
    Capacity(usize),
}

fn pressure() -> impl Strategy<Value = Pressure> {
    prop_oneof![
        Just(Pressure::None),
        (2..4usize).prop_map(Pressure::PoolLimit),
        (2..4usize).prop_map(Pressure::Capacity)
    ]
}

fn run(n: usize, ops: &[Op], pressure: Pressure, seed: u64) -> Result<(), TestCaseError> {
    let block = size_class(n * 4);
    let mut cfg = jittery(seed);
    if let Pressure::Capacity(k) = pressure {
        cfg.memory_bytes = k * block;
    }
    let (rt, sim) = sim_runtime(cfg);
    if let Pressure::PoolLimit(k) = pressure {
        rt.gpu().unwrap().set_memory_limit(Some(k * block));
    }

    // The model: handles point at buffers.
    let mut model: Vec<Vec<i32>> =
        (0..HANDLES).map(|k| (0..n as i32).map(|i| i * 10 + k as i32).collect()).collect();
    let mut handle_buf: Vec<usize> = (0..HANDLES).collect();
    let mut arrays: Vec<Array<i32>> =
        model.iter().map(|v| Array::from_vec(&[n], v.clone()).unwrap()).collect();

    for op in ops {
        match *op {
            Op::HostWrite { a, i, v } => {
                let i = i % n;
                arrays[a].set(&[i], v).unwrap();
                model[handle_buf[a]][i] = v;
            }
            Op::HostRead { a } => {
                prop_assert_eq!(&arrays[a].to_vec().unwrap(), &model[handle_buf[a]], "{:?}", op);
            }
            Op::HostGet { a, i } => {
                let i = i % n;
                prop_assert_eq!(arrays[a].get(&[i]).unwrap(), model[handle_buf[a]][i]);
            }
            Op::AddScalar { a, v, dev } => {
                rt.launch(&ADD_SCALAR)
                    .dims(&[n])
                    .arg(&arrays[a], Access::ReadWrite)
                    .scalar(v)
                    .on(dev.mode())
                    .run()
                    .unwrap();
                for x in &mut model[handle_buf[a]] {
                    *x = x.wrapping_add(v);
                }
            }
            Op::Copy { src, dst, dev } => {
                rt.launch(&COPY)
                    .dims(&[n])
                    .arg(&arrays[src], Access::Read)
                    .arg(&arrays[dst], Access::Write)
                    .on(dev.mode())
                    .run()
                    .unwrap();
                let v = model[handle_buf[src]].clone();
                model[handle_buf[dst]] = v;
            }
            Op::Axpy { x, y, k, dev } => {
                rt.launch(&AXPY)
                    .dims(&[n])
                    .arg(&arrays[x], Access::Read)
                    .arg(&arrays[y], Access::ReadWrite)
                    .scalar(k)
                    .on(dev.mode())
                    .run()
                    .unwrap();
                let xs = model[handle_buf[x]].clone();
                for (yi, xi) in model[handle_buf[y]].iter_mut().zip(xs) {
                    *yi = yi.wrapping_add(k.wrapping_mul(xi));
                }
            }
            Op::Replace { a } => {
                arrays[a] = arrays[a].copy().unwrap();
                model.push(model[handle_buf[a]].clone());
                handle_buf[a] = model.len() - 1;
            }
            Op::Share { a, b } => {
                arrays[b] = arrays[a].clone();
                handle_buf[b] = handle_buf[a];
            }
            Op::Sync { a } => arrays[a].sync().unwrap(),
        }
    }
    for a in 0..HANDLES {
        prop_assert_eq!(&arrays[a].to_vec().unwrap(), &model[handle_buf[a]], "final, handle {}", a);
    }
    let stats = rt.gpu().unwrap().pool_stats();
    if let Pressure::PoolLimit(k) = pressure {
        prop_assert!(stats.used + stats.cached <= k * block, "{:?}", stats);
    }
    drop(arrays);
    rt.synchronize().unwrap();
    prop_assert!(sim.violations().is_empty(), "{:?}", sim.violations());
    Ok(())
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 96, ..ProptestConfig::default() })]

    #[test]
    fn any_sequence_matches_a_host_only_run(
        n in prop_oneof![Just(1usize), Just(7), 100..3000usize],
        ops in prop::collection::vec(op(), 1..40),
        pressure in pressure(),
        seed in any::<u64>(),
    ) {
        run(n, &ops, pressure, seed)?;
    }
}

/// A fixed sequence that exercises every transition at least once, also run without proptest.
#[test]
fn every_transition_once() {
    use Dev::*;
    let ops = vec![
        Op::AddScalar { a: 0, v: 1, dev: Gpu },
        Op::HostGet { a: 0, i: 3 },
        Op::Copy { src: 0, dst: 1, dev: Gpu },
        Op::HostWrite { a: 1, i: 2, v: 42 },
        Op::Axpy { x: 1, y: 2, k: 2, dev: Gpu },
        Op::Axpy { x: 2, y: 2, k: 1, dev: Cpu },
        Op::Share { a: 2, b: 3 },
        Op::AddScalar { a: 3, v: -1, dev: Gpu },
        Op::Replace { a: 2 },
        Op::AddScalar { a: 2, v: 5, dev: Gpu },
        Op::Copy { src: 3, dst: 4, dev: Cpu },
        Op::HostRead { a: 4 },
        Op::Copy { src: 4, dst: 4, dev: Gpu },
        Op::Sync { a: 4 },
    ];
    for p in [Pressure::None, Pressure::PoolLimit(2), Pressure::Capacity(2)] {
        run(1000, &ops, p, 1).unwrap();
    }
}
