/// When an append merges small segments of an Appendable object, so that many tiny appends do not leave an
/// object of thousands of tiny files (each GET would open them all).
///
/// An append writes only its own bytes, as a new segment file (ObjectStore+Append.swift).
/// Segments of at least `threshold` bytes are never rewritten. Among the small ones at the end, the new segment
/// is merged with the ones before it like a binary counter: while the previous segment is no longer than what is
/// being merged and the result stays within `threshold`, it joins the merge. So the small tail has strictly
/// decreasing sizes (at most about log2(threshold / smallest append) + 1 segments), and a byte is rewritten at most
/// about log2(threshold / its append's size) times, amortized over the appends (4 KiB appends with the default
/// 4 MiB threshold: about 10 writes per byte, once; appends of `threshold` or more: never). As a backstop against
/// adversarial size sequences (e.g. strictly decreasing appends, which the counter never merges), a tail of more
/// than ``maximumSmallSegments`` small segments is merged whole.
///
/// The merge reads only the small tail (at most about 2 × `threshold` bytes plus the backstop's run), never the
/// whole object; its CRC-64 is the combination of the merged segments' CRCs and is checked against what was
/// written.
enum AppendCompaction {
    /// The longest run of small segments left at the end of an object.
    static let maximumSmallSegments = 32

    /// How many segments at the end of `lengths` (the last being the new append) to merge into one: 1 means none.
    static func mergeCount(_ lengths: [Int64], threshold: Int64) -> Int {
        guard let last = lengths.last, threshold > 0 else { return 1 }
        var count = 1
        var merged = last
        while count < lengths.count {
            let previous = lengths[lengths.count - 1 - count]
            guard previous <= merged, previous + merged <= threshold else { break }
            merged += previous
            count += 1
        }
        if count > 1 { return count }
        let small = lengths.reversed().prefix { $0 < threshold }.count
        return small > maximumSmallSegments ? small : 1
    }
}
