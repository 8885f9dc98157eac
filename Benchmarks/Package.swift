// swift-tools-version:6.1
import Foundation
import PackageDescription

// Benchmarks that need only the SDK's public API, in a package of their own so the SDK's manifest declares only
// what a user links. (`oss-microbench`, which times package-internal code, stays in the SDK's manifest.)

/// The SDK is the package one directory up; a local package's identity is its directory's name.
let sdkPath = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
let sdk = sdkPath.lastPathComponent

let package = Package(
    name: "aliyun-oss-swift-benchmarks",
    platforms: [.macOS(.v13)],
    dependencies: [
        .package(path: sdkPath.path),
        .package(url: "https://github.com/apple/swift-metrics.git", from: "2.13.0"),
        .package(url: "https://github.com/apple/swift-distributed-tracing.git", from: "1.7.3"),
        .package(url: "https://github.com/apple/swift-nio.git", from: "2.101.2"),
    ],
    targets: [
        // The request-heavy benchmark: metrics and tracing off, installed, bootstrapped (scripts/bench-requests.sh).
        .executableTarget(
            name: "oss-request-bench",
            dependencies: [
                .product(name: "AliyunOSS", package: sdk),
                .product(name: "AliyunOSSObservability", package: sdk),
                .product(name: "OSSCRC64", package: sdk),
                .product(name: "CoreMetrics", package: "swift-metrics"),
                .product(name: "Tracing", package: "swift-distributed-tracing"),
                .product(name: "NIOConcurrencyHelpers", package: "swift-nio"),
            ],
            path: "oss-request-bench",
            swiftSettings: [.enableUpcomingFeature("ExistentialAny"), .enableUpcomingFeature("MemberImportVisibility")]
        ),
    ],
    swiftLanguageModes: [.v6]
)
