import Testing

@testable import oss

/// The rate `oss cp` shows counts only this run's bytes: a resumed transfer's first report (everything earlier
/// runs finished, delivered at once) is the baseline, not bytes moved in no time.
@Suite("oss cp progress rate")
struct ProgressRateTests {
    @Test("a resumed transfer: 12 GiB done before, 10 MiB in this run's first second is 10 MiB/s, not 12 GiB/s")
    func resumedBytesDoNotInflateTheRate() {
        var rate = RunRate()
        let earlier: Int64 = 12 << 30
        #expect(rate.record(done: earlier, at: 0.5) == nil, "no rate from the first report")
        #expect(rate.record(done: earlier + (1 << 20), at: 0.625) == nil, "no rate before 0.2 s")
        let measured = rate.record(done: earlier + (10 << 20), at: 1.5)
        #expect(measured == Double(10 << 20), "\(String(describing: measured))")
    }

    @Test("a new transfer: the rate is the bytes after the first report over the time since it")
    func newTransfer() {
        var rate = RunRate()
        _ = rate.record(done: 1 << 20, at: 0.5)
        #expect(rate.record(done: 5 << 20, at: 2.5) == Double(2 << 20))
        #expect(rate.record(done: 5 << 20, at: 4.5) == Double(1 << 20), "a stall lowers it")
    }
}
