// Micro benchmarks: signing, presigning, CRC64 (folding and table), combine, MD5, XML decoding.
// Run: swift run -c release oss-microbench   (scripts/bench-micro.sh also runs the Python SDKs beside it)
import Crypto
import Foundation
import OSSCRC64
import OSSSigning
import OSSXML

@inline(never) func blackHole<T>(_ value: T) { withExtendedLifetime(value) {} }

/// Runs `body` repeatedly for about `seconds` and returns the best per-iteration time of 5 rounds, in nanoseconds.
func measure(iterations: Int, rounds: Int = 5, _ body: () -> Void) -> Double {
    var best = Double.infinity
    for _ in 0..<rounds {
        let start = DispatchTime.now().uptimeNanoseconds
        for _ in 0..<iterations { body() }
        let elapsed = Double(DispatchTime.now().uptimeNanoseconds - start)
        best = min(best, elapsed / Double(iterations))
    }
    return best
}

/// Prints at once (unbuffered), so figures appear as they are measured even when piped.
func say(_ line: String) {
    FileHandle.standardOutput.write(Data((line + "\n").utf8))
}

func row(_ name: String, _ value: String, _ reference: String) {
    say(name.padding(toLength: 44, withPad: " ", startingAt: 0) + value.padding(toLength: 18, withPad: " ", startingAt: 0) + reference)
}

#if canImport(Glibc)
let RUSAGE_SELF_WHO = RUSAGE_SELF.rawValue
#else
let RUSAGE_SELF_WHO = RUSAGE_SELF
#endif

/// `oss-microbench --floor FILE`: the CPU floor of an upload on one core: read the file in 1 MiB chunks, MD5 and
/// CRC-64 it. Prints wall and CPU seconds and MB/s; the upload benchmarks report the SDK's CPU per GiB against it.
if CommandLine.arguments.count == 3, CommandLine.arguments[1] == "--floor" {
    let path = CommandLine.arguments[2]
    guard let handle = FileHandle(forReadingAtPath: path) else {
        say("cannot open \(path)")
        exit(2)
    }
    var usage = rusage()
    getrusage(RUSAGE_SELF_WHO, &usage)
    let cpu0 = Double(usage.ru_utime.tv_sec + usage.ru_stime.tv_sec) + Double(usage.ru_utime.tv_usec + usage.ru_stime.tv_usec) / 1e6
    let start = DispatchTime.now().uptimeNanoseconds
    var md5 = Insecure.MD5()
    var crc = CRC64()
    var total = 0
    while let chunk = try? handle.read(upToCount: 1 << 20), !chunk.isEmpty {
        chunk.withUnsafeBytes { raw in
            md5.update(bufferPointer: raw)
            crc.update(raw)
        }
        total += chunk.count
    }
    let wall = Double(DispatchTime.now().uptimeNanoseconds - start) / 1e9
    getrusage(RUSAGE_SELF_WHO, &usage)
    let cpu = Double(usage.ru_utime.tv_sec + usage.ru_stime.tv_sec) + Double(usage.ru_utime.tv_usec + usage.ru_stime.tv_usec) / 1e6 - cpu0
    blackHole(md5.finalize())
    say(String(format: "floor: %d bytes, wall %.2f s, cpu %.2f s, %.0f MB/s, cpu per GiB %.2f s, crc64 %llu", total, wall, cpu, Double(total) / wall / 1e6, cpu / (Double(total) / 1_073_741_824), crc.value))
    exit(0)
}

let credentials = OSSCredentials(accessKeyId: "LTAI5tExampleAccessKeyId", accessKeySecret: "ExampleAccessKeySecret0123456789")
let date = Date(timeIntervalSince1970: 1_705_307_445)
func sampleRequest() -> OSSSignableRequest {
    OSSSignableRequest(
        method: "PUT", bucket: "examplebucket", key: "photos/2024/cat.jpg", query: ["partNumber": "3", "uploadId": "0004B9894A22E5B1888A1E29F8236E2D"],
        headers: ["Content-Type": "image/jpeg", "Content-MD5": "XrY7u+Ae7tCTyyK7j1rNww==", "x-oss-meta-author": "alice"])
}

say("oss-microbench (release build; best of 5 rounds)")
say("machine: \(ProcessInfo.processInfo.processorCount) cores, CRC64 carry-less multiply: \(CRC64.isHardwareAccelerated ? "yes" : "no")")
say("")
row("benchmark", "this SDK", "official Swift SDK v2 (guide's figure, same machines)")
row(String(repeating: "-", count: 40), String(repeating: "-", count: 14), String(repeating: "-", count: 30))

let v1 = measure(iterations: 20_000) {
    var r = sampleRequest()
    try! OSSSignerV1().sign(&r, credentials: credentials, date: date)
    blackHole(r)
}
row("V1 header sign (per request)", String(format: "%.2f µs", v1 / 1000), "8.4 µs (target ≤ 3 µs)")
let v4signer = OSSSignerV4(region: "cn-hangzhou")
let v4 = measure(iterations: 20_000) {
    var r = sampleRequest()
    try! v4signer.sign(&r, credentials: credentials, date: date)
    blackHole(r)
}
row("V4 header sign (per request)", String(format: "%.2f µs", v4 / 1000), "102 µs (target ≤ 20 µs)")
let presign = measure(iterations: 20_000) {
    var r = OSSSignableRequest(method: "GET", bucket: "examplebucket", key: "photos/2024/cat.jpg")
    try! v4signer.presign(&r, credentials: credentials, date: date, expiresIn: 3600)
    blackHole(OSSPercentEncoding.encodeQuery(r.query))
}
row("V4 presign (per URL)", String(format: "%.2f µs", presign / 1000), "139 µs (target ≤ 20 µs)")

// `--signing-only`: stop after the signing figures (for profilers such as callgrind).
if CommandLine.arguments.contains("--signing-only") { exit(0) }

var generator = SystemRandomNumberGenerator()
let buffer = (0..<(64 << 20)).map { _ in UInt8.random(in: 0...255, using: &generator) }
let gbps: (Double) -> String = { ns in String(format: "%.2f GB/s", Double(buffer.count) / ns) }
let crcFast = buffer.withUnsafeBytes { raw in measure(iterations: 4) { blackHole(CRC64.update(0, raw)) } }
row("CRC64 (folding path when available)", gbps(crcFast), "1.7 GB/s (target ≥ 5 GB/s)")
let crcTable = buffer.withUnsafeBytes { raw in measure(iterations: 2) { blackHole(CRC64.updateSlicingBy8(0, raw)) } }
row("CRC64 slicing-by-8 (portable fallback)", gbps(crcTable), "-")
let combine = measure(iterations: 100_000) {
    blackHole(CRC64.combine(0x1234_5678_9ABC_DEF0, 0x0FED_CBA9_8765_4321, length2: 5_368_709_120))
}
row("CRC64 combine (5 GiB second part)", String(format: "%.2f µs", combine / 1000), "41-187 µs (target ≤ 2 µs)")
let md5 = buffer.withUnsafeBytes { raw in measure(iterations: 2) { blackHole(Insecure.MD5.hash(data: raw)) } }
row("MD5 (swift-crypto)", gbps(md5), "-")

// A 1000-part ListParts page, as the local server and OSS send it.
var page = "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<ListPartsResult><Bucket>examplebucket</Bucket><Key>big/archive.bin</Key><UploadId>0004B9894A22E5B1888A1E29F8236E2D</UploadId><PartNumberMarker>0</PartNumberMarker><NextPartNumberMarker>1000</NextPartNumberMarker><MaxParts>1000</MaxParts><IsTruncated>true</IsTruncated>"
for n in 1...1000 {
    page += "<Part><PartNumber>\(n)</PartNumber><LastModified>2024-01-15T08:30:45.000Z</LastModified><ETag>\"3858F62230AC3C915F300C664312C11F\"</ETag><HashCrc64ecma>\(UInt64(n) &* 0x9E37_79B9_7F4A_7C15)</HashCrc64ecma><Size>10485760</Size></Part>"
}
page += "</ListPartsResult>"
let pageBytes = Array(page.utf8)
let xml = measure(iterations: 20) {
    let root = try! OSSXMLParser.parse(pageBytes, root: "ListPartsResult")
    var total: UInt64 = 0
    for part in root.children("Part") {
        total &+= (try! part.uint64("HashCrc64ecma")) ?? 0
        total &+= UInt64(try! part.int("PartNumber") ?? 0)
    }
    blackHole(total)
}
row("XML decode, 1000-part ListParts page", String(format: "%.2f ms", xml / 1_000_000), "-")
