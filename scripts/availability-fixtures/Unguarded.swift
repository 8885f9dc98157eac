// The availability gate's own test (scripts/check-availability.py --self-test): each line marked
// `expect: new` uses an API newer than the package's minimum outside any availability check.
import Synchronization

func unguarded() async {
    await withDiscardingTaskGroup { group in  // expect: new
        group.addTask {}
    }
    let counter = Mutex(0)  // expect: new
    _ = counter
}

struct Holder {
    let lock: Mutex<Int>  // expect: new
}

#if canImport(Darwin)
// Apple-only code is read too.
func appleOnly() async {
    await withDiscardingTaskGroup { _ in }  // expect: new
}
#else
// Code for other platforms is not: Mutex is fine on Linux.
let linuxLock = Mutex(0)
#endif
