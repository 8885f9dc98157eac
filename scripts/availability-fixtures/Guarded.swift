// The availability gate's own test: the same APIs behind availability checks are not reported.
import Synchronization

func guarded() async {
    if #available(macOS 14, iOS 17, tvOS 17, watchOS 10, *) {
        await withDiscardingTaskGroup { group in
            group.addTask {}
        }
    } else {
        await withTaskGroup(of: Void.self) { group in
            group.addTask {}
        }
    }
    guard #available(macOS 15, iOS 18, tvOS 18, watchOS 11, *) else { return }
    let counter = Mutex(0)
    _ = counter
}

@available(macOS 15, iOS 18, tvOS 18, watchOS 11, *)
struct NewHolder {
    let lock: Mutex<Int>
}

func partly() async {
    // Not enough: iOS 17 covers withDiscardingTaskGroup, not Mutex.
    if #available(macOS 14, iOS 17, tvOS 17, watchOS 10, *) {
        let counter = Mutex(0)  // expect: new
        _ = counter
    }
}

// Comments and strings that name withDiscardingTaskGroup or Mutex are not code.
let text = "withDiscardingTaskGroup { Mutex(0) }"
