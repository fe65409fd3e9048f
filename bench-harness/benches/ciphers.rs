//! Criterion benches: one group per algorithm and direction, each variant
//! (and the RustCrypto peer) at 16, 256 and 8192 bytes, as throughput.
//! `cargo bench -p bench-harness`.

use bench_harness::engine::Dir;
use bench_harness::registry::{self, Alg};
use criterion::{BenchmarkId, Criterion, Throughput, criterion_group, criterion_main};

const SIZES: [usize; 3] = [16, 256, 8192];

fn ciphers(c: &mut Criterion) {
    for alg in registry::all() {
        let Alg::Cipher { mode, entry, keys } = alg else {
            continue;
        };
        let key = vec![0xff; keys[0]];
        for dir in Dir::BOTH {
            let mut group = c.benchmark_group(format!("{} {}", alg.name(), dir.name()));
            let mut engines: Vec<(String, _)> = entry
                .variants
                .iter()
                .filter_map(|(v, make)| Some((v.to_string(), make.as_ref()?())))
                .collect();
            for peer in entry.peers {
                if let Some(make) = peer.make {
                    engines.push((peer.name.to_string(), make()));
                }
            }
            for (name, engine) in &mut engines {
                engine.set_key(mode, &key).expect("template key");
                for size in SIZES {
                    let size = size.div_ceil(entry.block_size) * entry.block_size;
                    let mut buf = vec![0xff; size];
                    let mut iv = vec![0xff; entry.block_size];
                    group.throughput(Throughput::Bytes(size as u64));
                    group.bench_function(BenchmarkId::new(name.as_str(), size), |b| {
                        b.iter(|| {
                            engine
                                .crypt(mode, dir, &mut iv, &mut buf)
                                .expect("whole blocks")
                        })
                    });
                }
            }
            group.finish();
        }
    }
}

criterion_group!(benches, ciphers);
criterion_main!(benches);
