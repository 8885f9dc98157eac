import AliyunOSS
import Testing

/// Regression tests for what the Content-Range fuzzer found (docs/RELIABILITY.md, finding 3).
@Suite("Regressions: Content-Range parsing")
struct ContentRangeRegressionTests {
    @Test("a range ending at or past the object's size, or a size that is not a number, is refused", arguments: [
        "bytes 0-99/10", "bytes 0-10/10", "bytes 5-5/5", "bytes 0-9/abc", "bytes 0-9/", "bytes 0-9/-1",
        "bytes 0-9223372036854775807/9223372036854775807",
    ])
    func refused(header: String) {
        #expect(OSSContentRange(header) == nil)
    }

    @Test("valid ranges still parse")
    func accepted() {
        let full = OSSContentRange("bytes 0-9/10")
        #expect(full?.start == 0 && full?.end == 9 && full?.total == 10)
        #expect(OSSContentRange("bytes 10-19/1000")?.total == 1000)
        let unknown = OSSContentRange("bytes 5-5/*")
        #expect(unknown?.start == 5 && unknown?.end == 5 && unknown != nil && unknown?.total == nil)
    }
}
