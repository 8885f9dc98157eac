// swift-tools-version:6.1
import Foundation
import PackageDescription

// The samples: small programs to copy into an app (`swift run --package-path Samples put-object`, ...) and a
// Hummingbird backend in front of a bucket. A package of their own, so that the SDK's manifest declares only what a
// user links (the SDK, its observability middleware, the local server, the `oss` tool) and an app that adds the SDK
// never resolves Hummingbird or the samples' argument parsing.

/// The SDK is the package one directory up; a local package's identity is its directory's name.
let sdkPath = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
let sdk = sdkPath.lastPathComponent

let swiftSettings: [SwiftSetting] = [
    .enableUpcomingFeature("ExistentialAny"),
    .enableUpcomingFeature("MemberImportVisibility"),
]

/// A command-line sample: the SDK, the embedded local server (used when no endpoint is given) and argument parsing.
func sample(_ name: String, path: String, exclude: [String] = [], nio: Bool = false) -> Target {
    .executableTarget(
        name: name,
        dependencies: [
            .product(name: "AliyunOSS", package: sdk),
            .product(name: "OSSLocalServer", package: sdk),
            .product(name: "ArgumentParser", package: "swift-argument-parser"),
        ] + (nio ? [.product(name: "NIOCore", package: "swift-nio")] : []),
        path: path,
        exclude: exclude,
        swiftSettings: swiftSettings
    )
}

let package = Package(
    name: "aliyun-oss-swift-samples",
    platforms: [.macOS(.v14), .iOS(.v17)],
    dependencies: [
        .package(path: sdkPath.path),
        .package(url: "https://github.com/apple/swift-argument-parser.git", from: "1.8.2"),
        .package(url: "https://github.com/apple/swift-nio.git", from: "2.101.2"),
        .package(url: "https://github.com/apple/swift-metrics.git", from: "2.13.0"),
        .package(url: "https://github.com/apple/swift-distributed-tracing.git", from: "1.7.3"),
        .package(url: "https://github.com/hummingbird-project/hummingbird.git", from: "2.28.1"),
    ],
    targets: [
        sample("put-object", path: "PutObject", nio: true),
        sample("get-object", path: "GetObject", nio: true),
        sample("presign", path: "Presign", nio: true),
        sample("multipart-upload", path: "MultipartUpload", nio: true),
        sample("resumable-download", path: "ResumableDownload", exclude: ["benchmark.sh"]),
        sample("resumable-upload", path: "ResumableUpload", exclude: ["benchmark.sh"]),
        sample("sync-directory", path: "SyncDirectory"),
        sample("refreshing-credentials", path: "RefreshingCredentials"),

        // A Hummingbird backend in front of a bucket, with metrics and tracing: the app as a library, a thin
        // executable, and its tests (HummingbirdTesting against the embedded local server).
        .target(
            name: "PhotoBackend",
            dependencies: [
                .product(name: "AliyunOSS", package: sdk),
                .product(name: "AliyunOSSObservability", package: sdk),
                .product(name: "Hummingbird", package: "hummingbird"),
            ],
            path: "PhotoBackend/Sources/PhotoBackend",
            swiftSettings: swiftSettings
        ),
        .executableTarget(
            name: "photo-backend",
            dependencies: [
                "PhotoBackend",
                .product(name: "AliyunOSS", package: sdk),
                .product(name: "OSSLocalServer", package: sdk),
                .product(name: "Hummingbird", package: "hummingbird"),
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
            ],
            path: "PhotoBackend/Sources/photo-backend",
            swiftSettings: swiftSettings
        ),
        .testTarget(
            name: "PhotoBackendTests",
            dependencies: [
                "PhotoBackend",
                .product(name: "AliyunOSS", package: sdk),
                .product(name: "OSSLocalServer", package: sdk),
                .product(name: "Hummingbird", package: "hummingbird"),
                .product(name: "HummingbirdTesting", package: "hummingbird"),
                .product(name: "MetricsTestKit", package: "swift-metrics"),
                .product(name: "InMemoryTracing", package: "swift-distributed-tracing"),
            ],
            path: "PhotoBackend/Tests/PhotoBackendTests",
            swiftSettings: swiftSettings
        ),

        // The app server's side of remote signing (issue #32): OSSRemoteSigningAuthority behind a Hummingbird route,
        // each user limited to users/<user>/; the library, a thin executable, and its tests (a live loopback server).
        .target(
            name: "RemoteSigner",
            dependencies: [.product(name: "AliyunOSS", package: sdk), .product(name: "Hummingbird", package: "hummingbird")],
            path: "RemoteSigner/Sources/RemoteSigner",
            swiftSettings: swiftSettings
        ),
        .executableTarget(
            name: "remote-signer",
            dependencies: [
                "RemoteSigner",
                .product(name: "AliyunOSS", package: sdk),
                .product(name: "OSSLocalServer", package: sdk),
                .product(name: "Hummingbird", package: "hummingbird"),
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
            ],
            path: "RemoteSigner/Sources/remote-signer",
            swiftSettings: swiftSettings
        ),
        .testTarget(
            name: "RemoteSignerTests",
            dependencies: [
                "RemoteSigner",
                .product(name: "AliyunOSS", package: sdk),
                .product(name: "OSSCRC64", package: sdk),
                .product(name: "OSSLocalServer", package: sdk),
                .product(name: "Hummingbird", package: "hummingbird"),
                .product(name: "HummingbirdTesting", package: "hummingbird"),
            ],
            path: "RemoteSigner/Tests/RemoteSignerTests",
            swiftSettings: swiftSettings
        ),

        // A backend that hands a browser POST policies and presigned multipart plans for its user's prefix, and
        // serves the page that uploads with them (Page/: plain HTML and JavaScript, as resources).
        .target(
            name: "BrowserUpload",
            dependencies: [
                .product(name: "AliyunOSS", package: sdk),
                .product(name: "Hummingbird", package: "hummingbird"),
            ],
            path: "BrowserUpload/Sources/BrowserUpload",
            resources: [.copy("Page")],
            swiftSettings: swiftSettings
        ),
        .executableTarget(
            name: "browser-upload",
            dependencies: [
                "BrowserUpload",
                .product(name: "AliyunOSS", package: sdk),
                .product(name: "OSSLocalServer", package: sdk),
                .product(name: "Hummingbird", package: "hummingbird"),
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
            ],
            path: "BrowserUpload/Sources/browser-upload",
            swiftSettings: swiftSettings
        ),
        .testTarget(
            name: "BrowserUploadTests",
            dependencies: [
                "BrowserUpload",
                .product(name: "AliyunOSS", package: sdk),
                .product(name: "OSSLocalServer", package: sdk),
                .product(name: "Hummingbird", package: "hummingbird"),
                .product(name: "HummingbirdTesting", package: "hummingbird"),
            ],
            path: "BrowserUpload/Tests/BrowserUploadTests",
            swiftSettings: swiftSettings
        ),
    ],
    swiftLanguageModes: [.v6]
)
