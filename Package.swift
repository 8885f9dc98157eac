// swift-tools-version:6.1
import PackageDescription

/// AsyncHTTPClient is the default transport on Linux (several times faster there than swift-corelibs-foundation's
/// URLSession). On Apple platforms the SDK uses URLSession and links swift-crypto and swift-log, nothing else: no
/// AsyncHTTPClient, no swift-nio in any form.
let nonApple: [Platform] = [.linux, .android, .windows, .openbsd, .wasi]

/// `OSS_APPLE_SHAPE=1` evaluates this manifest as an Apple platform sees the SDK: only the `AliyunOSS` product, its
/// pure modules and the DocC snippet check, with swift-crypto and swift-log as the only dependencies and without the
/// `OSS_ASYNC_HTTP_CLIENT` condition; plus the opt-in `AliyunOSSObservability` product and the two packages only it
/// links (swift-metrics, swift-distributed-tracing; docs/APPLE.md). `scripts/apple-gate.sh` builds it on Linux, so
/// shared code that reaches for a Linux-only module (NIO, AsyncHTTPClient) fails here as it would in Xcode, and
/// checks that `AliyunOSS` alone still links nothing beyond swift-crypto and swift-log.
let appleShape = Context.environment["OSS_APPLE_SHAPE"] == "1"

let swiftSettings: [SwiftSetting] = [
    .enableUpcomingFeature("ExistentialAny"),
    .enableUpcomingFeature("MemberImportVisibility"),
]

/// The SDK's Linux-only code (the AsyncHTTPClient transport) is compiled under this condition.
let sdkSettings: [SwiftSetting] =
    swiftSettings + (appleShape ? [] : [.define("OSS_ASYNC_HTTP_CLIENT", .when(platforms: nonApple))])

/// What the SDK links on Linux only.
let sdkLinuxDependencies: [Target.Dependency] =
    appleShape
    ? []
    : [
        .product(name: "AsyncHTTPClient", package: "async-http-client", condition: .when(platforms: nonApple)),
        .product(name: "NIOCore", package: "swift-nio", condition: .when(platforms: nonApple)),
        .product(name: "NIOFoundationCompat", package: "swift-nio", condition: .when(platforms: nonApple)),
        // Already linked by AsyncHTTPClient: the transport turns its per-request spans off when no tracer is set up.
        .product(name: "Tracing", package: "swift-distributed-tracing", condition: .when(platforms: nonApple)),
    ]

let package = Package(
    name: "aliyun-oss-swift",
    platforms: [.macOS(.v13), .iOS(.v16), .tvOS(.v16), .watchOS(.v9)],
    products: [
        .library(name: "AliyunOSS", targets: ["AliyunOSS"]),
        // Metrics (swift-metrics) and tracing (swift-distributed-tracing) as pipeline middleware: a product of its
        // own, so that an app links those packages only when it adds it (docs/APPLE.md).
        .library(name: "AliyunOSSObservability", targets: ["AliyunOSSObservability"]),
        // Client-side encryption (the official SDKs' envelope): a product of its own, so that only an app that adds
        // it links swift-crypto's _CryptoExtras (RSA, AES-CTR) and swift-asn1 (docs/ENCRYPTION.md).
        .library(name: "AliyunOSSEncryption", targets: ["AliyunOSSEncryption"]),
        .library(name: "OSSLocalServer", targets: ["OSSLocalServer"]),
        .library(name: "OSSSigning", targets: ["OSSSigning"]),
        .library(name: "OSSCRC64", targets: ["OSSCRC64"]),
        .executable(name: "oss-local-server", targets: ["oss-local-server"]),
        .executable(name: "oss", targets: ["oss"]),
    ],
    dependencies: [
        // 4.x: the PKCS#1 v1.5 encryption padding that client-side encryption's RSA key wrap needs (docs/ENCRYPTION.md).
        .package(url: "https://github.com/apple/swift-crypto.git", from: "4.5.2"),
        .package(url: "https://github.com/apple/swift-nio.git", from: "2.101.2"),
        .package(url: "https://github.com/swift-server/async-http-client.git", from: "1.37.0"),
        .package(url: "https://github.com/apple/swift-log.git", from: "1.16.2"),
        .package(url: "https://github.com/apple/swift-argument-parser.git", from: "1.8.2"),
        .package(url: "https://github.com/apple/swift-metrics.git", from: "2.13.0"),
        .package(url: "https://github.com/apple/swift-distributed-tracing.git", from: "1.7.3"),
    ],
    targets: [
        // Pure modules: no networking. Shared by the SDK and the local server.
        .target(name: "COSSCRC64"),
        .target(name: "OSSCRC64", dependencies: ["COSSCRC64"], swiftSettings: swiftSettings),
        .target(
            name: "OSSSigning",
            dependencies: [.product(name: "Crypto", package: "swift-crypto")],
            swiftSettings: swiftSettings
        ),
        .target(name: "OSSXML", swiftSettings: swiftSettings),
        // Resumable-transfer logic with no networking: part plans, state machines, checkpoint records.
        .target(
            name: "OSSResumable",
            dependencies: ["OSSCRC64", .product(name: "Crypto", package: "swift-crypto")],
            swiftSettings: swiftSettings
        ),

        // The SDK.
        .target(
            name: "AliyunOSS",
            dependencies: [
                "OSSCRC64", "OSSSigning", "OSSXML", "OSSResumable",
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "Logging", package: "swift-log"),
            ] + sdkLinuxDependencies,
            resources: [.copy("PrivacyInfo.xcprivacy")],
            swiftSettings: sdkSettings
        ),

        // Metrics and tracing middleware for the SDK's pipeline (an opt-in product).
        .target(
            name: "AliyunOSSObservability",
            dependencies: [
                "AliyunOSS",
                .product(name: "CoreMetrics", package: "swift-metrics"),
                .product(name: "Tracing", package: "swift-distributed-tracing"),
            ],
            swiftSettings: swiftSettings
        ),

        // Client-side encryption over the SDK (an opt-in product).
        .target(
            name: "AliyunOSSEncryption",
            dependencies: [
                "AliyunOSS", "OSSCRC64", "OSSResumable",
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "_CryptoExtras", package: "swift-crypto"),
                .product(name: "Logging", package: "swift-log"),
            ],
            swiftSettings: swiftSettings
        ),

        // The local OSS-compatible server: a library and a thin executable.
        .target(
            name: "OSSLocalServer",
            dependencies: [
                "OSSCRC64", "OSSSigning", "OSSXML",
                .product(name: "Crypto", package: "swift-crypto"),
                // RSA: the STS stand-in checks OIDC tokens' RS256 signatures.
                .product(name: "_CryptoExtras", package: "swift-crypto"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "NIOHTTP1", package: "swift-nio"),
                .product(name: "_NIOFileSystem", package: "swift-nio"),
                .product(name: "Logging", package: "swift-log"),
            ],
            swiftSettings: swiftSettings
        ),
        // The server's command line, shared by `oss-local-server` and `oss serve`.
        .target(
            name: "LocalServerCommand",
            dependencies: [
                "OSSLocalServer", "OSSSigning",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
                .product(name: "Logging", package: "swift-log"),
            ],
            swiftSettings: swiftSettings
        ),
        .executableTarget(
            name: "oss-local-server",
            dependencies: ["LocalServerCommand", .product(name: "ArgumentParser", package: "swift-argument-parser")],
            swiftSettings: swiftSettings
        ),

        // The `oss` command-line tool.
        .executableTarget(
            name: "oss",
            dependencies: [
                "AliyunOSS", "AliyunOSSObservability", "AliyunOSSEncryption", "OSSLocalServer", "LocalServerCommand", "OSSXML",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOConcurrencyHelpers", package: "swift-nio"),
                .product(name: "Tracing", package: "swift-distributed-tracing"),
            ],
            swiftSettings: swiftSettings
        ),
        // Micro benchmarks (run in release: swift run -c release oss-microbench).
        .executableTarget(
            name: "oss-microbench",
            dependencies: ["OSSSigning", "OSSCRC64", "OSSXML", .product(name: "Crypto", package: "swift-crypto")],
            path: "Benchmarks/oss-microbench",
            swiftSettings: swiftSettings
        ),

        // Tests (Swift Testing).
        // What two or more test targets share: seeded bytes, scratch directories, the transport under test, the
        // built executables and samples, log capture. Only test targets depend on it.
        .target(
            name: "OSSTestSupport",
            dependencies: [
                "AliyunOSS", "OSSSigning",
                .product(name: "Logging", package: "swift-log"),
                .product(name: "NIOConcurrencyHelpers", package: "swift-nio"),
            ],
            path: "Tests/OSSTestSupport",
            swiftSettings: swiftSettings
        ),
        .testTarget(
            name: "OSSToolTests",
            dependencies: [
                "oss", "AliyunOSS", "OSSLocalServer", "LocalServerCommand", "OSSTestSupport",
                .product(name: "_CryptoExtras", package: "swift-crypto"),
            ],
            swiftSettings: swiftSettings
        ),
        .testTarget(name: "OSSCRC64Tests", dependencies: ["OSSCRC64", "OSSTestSupport"], swiftSettings: swiftSettings),
        .testTarget(
            name: "OSSSigningTests",
            dependencies: ["OSSSigning", "OSSTestSupport", .product(name: "Crypto", package: "swift-crypto")],
            resources: [.copy("Fixtures")],
            swiftSettings: swiftSettings
        ),
        .testTarget(
            name: "AliyunOSSEncryptionTests",
            dependencies: [
                "AliyunOSSEncryption", "AliyunOSS", "OSSLocalServer", "OSSTestSupport", "OSSCRC64",
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "_CryptoExtras", package: "swift-crypto"),
            ],
            swiftSettings: swiftSettings
        ),
        .testTarget(name: "OSSXMLTests", dependencies: ["OSSXML"], swiftSettings: swiftSettings),
        .testTarget(
            name: "OSSResumableTests", dependencies: ["OSSResumable", "OSSCRC64", "OSSTestSupport"], swiftSettings: swiftSettings),
        .testTarget(
            name: "OSSLocalServerTests",
            dependencies: [
                "OSSLocalServer", "OSSSigning", "OSSCRC64", "OSSXML", "AliyunOSS", "OSSTestSupport",
                .product(name: "AsyncHTTPClient", package: "async-http-client"),
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOHTTP1", package: "swift-nio"),
            ],
            swiftSettings: swiftSettings
        ),
        // Reliability: seeded fuzzing, authentication attacks, hostile keys, seeded faults, secret scans.
        .testTarget(
            name: "OSSReliabilityTests",
            dependencies: [
                "AliyunOSS", "OSSLocalServer", "OSSSigning", "OSSCRC64", "OSSXML", "OSSResumable", "OSSTestSupport",
                .product(name: "AsyncHTTPClient", package: "async-http-client"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOHTTP1", package: "swift-nio"),
                .product(name: "NIOConcurrencyHelpers", package: "swift-nio"),
                .product(name: "Logging", package: "swift-log"),
            ],
            swiftSettings: swiftSettings
        ),
        .testTarget(
            name: "AliyunOSSTests",
            dependencies: [
                "AliyunOSS", "AliyunOSSObservability", "OSSLocalServer", "OSSXML", "OSSTestSupport",
                .product(name: "MetricsTestKit", package: "swift-metrics"),
                .product(name: "InMemoryTracing", package: "swift-distributed-tracing"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOConcurrencyHelpers", package: "swift-nio"),
                .product(name: "Logging", package: "swift-log"),
            ],
            swiftSettings: swiftSettings
        ),
        // The DocC articles' app snippets, type-checked against the SDK as a Swift 6 app target would (stand-ins for
        // UIKit and SwiftUI where those do not exist); DocSnippetsTests checks the articles quote them verbatim.
        .target(name: "AppleSnippets", dependencies: ["AliyunOSS"], path: "Tests/AppleSnippets", swiftSettings: swiftSettings),
        // README.md's Swift blocks, compiled as a reader's code would be; DocSnippetsTests checks the README quotes them
        // verbatim, with exactly the imports each block shows.
        .target(
            name: "ReadmeSnippets", dependencies: ["AliyunOSS", "OSSLocalServer"], path: "Tests/ReadmeSnippets",
            swiftSettings: swiftSettings),
    ],
    swiftLanguageModes: [.v6]
)

if appleShape {
    let sdk: Set = [
        "COSSCRC64", "OSSCRC64", "OSSSigning", "OSSXML", "OSSResumable", "AliyunOSS", "AliyunOSSObservability",
        "AliyunOSSEncryption", "AppleSnippets",
    ]
    package.targets.removeAll { !sdk.contains($0.name) }
    package.products.removeAll { !["AliyunOSS", "AliyunOSSObservability", "AliyunOSSEncryption"].contains($0.name) }
    let linked = ["/swift-crypto.git", "/swift-log.git", "/swift-metrics.git", "/swift-distributed-tracing.git"]
    package.dependencies.removeAll { dependency in
        guard case .sourceControl(_, let location, _) = dependency.kind else { return true }
        return !linked.contains { location.hasSuffix($0) }
    }
}
