// swift-tools-version:6.2
//
// TokKit: join real-time audio/video sessions from Swift on Linux.
//
// Layers, top to bottom (dependencies point down only):
//   TokKit (facade: Session, Publisher, Subscriber)        TokKitServer / tokkit-server
//     → TokKitCapture, TokKitAudio (devices)                 → TokKitProtocol (wire types)
//     → TokKitRecording (RTP → WebM, no re-encoding)
//     → TokKitMedia (frames, formats, buses, conversion)
//     → TokKitICE, TokKitDTLS, TokKitRTP, TokKitSDP (RTC layers)
//     → C* (one shim module per C library)
import PackageDescription

let strict: [SwiftSetting] = [
    .swiftLanguageMode(.v6),
    .enableUpcomingFeature("ExistentialAny"),
    .enableUpcomingFeature("MemberImportVisibility"),
]

/// A system-library shim: `Sources/<name>/module.modulemap` + `shim.h`.
func shim(_ name: String, pkgConfig: String? = nil, apt: String) -> Target {
    .systemLibrary(name: name, pkgConfig: pkgConfig, providers: [.apt([apt])])
}

let package = Package(
    name: "TokKit",
    products: [
        .library(name: "TokKit", targets: ["TokKit"]),
        .library(name: "TokKitCapture", targets: ["TokKitCapture"]),
        .library(name: "TokKitAudio", targets: ["TokKitAudio"]),
        .library(name: "TokKitServer", targets: ["TokKitServer"]),
        .library(name: "TokKitTesting", targets: ["TokKitTesting"]),
        .executable(name: "tokkit-server", targets: ["tokkit-server"]),
    ],
    dependencies: [
        .package(url: "https://github.com/apple/swift-log.git", from: "1.16.2"),
        .package(url: "https://github.com/apple/swift-crypto.git", from: "3.12.3"),
        .package(url: "https://github.com/apple/swift-argument-parser.git", from: "1.8.2"),
        .package(url: "https://github.com/hummingbird-project/hummingbird.git", from: "2.28.1"),
        .package(url: "https://github.com/hummingbird-project/hummingbird-websocket.git", from: "2.8.1"),
        .package(url: "https://github.com/hummingbird-project/swift-websocket.git", from: "1.6.2"),
        .package(url: "https://github.com/apple/swift-nio.git", from: "2.101.2"),
        // Already in the graph through swift-websocket; named here because TokKitJanus sets a WebSocket header.
        .package(url: "https://github.com/apple/swift-http-types.git", from: "1.8.0"),
        .package(url: "https://github.com/swift-server/swift-service-lifecycle.git", from: "2.13.0"),
        .package(url: "https://github.com/swift-server/swift-prometheus.git", from: "2.4.1"),
        // `swift package generate-documentation --target TokKit` (README, "Documentation"); scripts/check-docs.
        .package(url: "https://github.com/swiftlang/swift-docc-plugin", from: "1.5.0"),
        // The server's archive store (issue 16): SQLite through GRDB (Debian: libsqlite3-dev, scripts/bootstrap).
        .package(url: "https://github.com/groue/GRDB.swift.git", from: "7.10.0"),
    ],
    targets: [
        // MARK: C shims (one per C library)
        shim("CYUV", apt: "libyuv-dev"),
        shim("CV4L2", pkgConfig: "libv4l2", apt: "libv4l-dev"),
        shim("CALSA", pkgConfig: "alsa", apt: "libasound2-dev"),
        shim("CJPEG", pkgConfig: "libjpeg", apt: "libjpeg-dev"),
        .target(name: "CX11", linkerSettings: [.linkedLibrary("X11"), .linkedLibrary("Xext")]),
        .target(name: "CTokKitSystem"),
        shim("CNice", pkgConfig: "nice", apt: "libnice-dev"),
        shim("COpenSSL", pkgConfig: "openssl", apt: "libssl-dev"),
        shim("CSRTP", pkgConfig: "libsrtp2", apt: "libsrtp2-dev"),
        shim("CVPX", pkgConfig: "vpx", apt: "libvpx-dev"),
        shim("COpus", pkgConfig: "opus", apt: "libopus-dev"),
        shim("CAVFormat", pkgConfig: "libavformat", apt: "libavformat-dev"),

        // MARK: Media primitives
        .target(name: "TokKitMedia", dependencies: ["CYUV", "CTokKitSystem"], swiftSettings: strict),

        // MARK: RTC layers
        .target(name: "TokKitICE", dependencies: ["CNice"], swiftSettings: strict),
        .target(name: "TokKitSRTP", dependencies: ["CSRTP"], swiftSettings: strict),
        .target(name: "TokKitDTLS", dependencies: ["TokKitICE", "TokKitSRTP", "COpenSSL"], swiftSettings: strict),
        .target(name: "TokKitRTP", swiftSettings: strict),
        .target(name: "TokKitSDP", swiftSettings: strict),
        .target(name: "TokKitPeer", dependencies: ["TokKitICE", "TokKitDTLS", "TokKitSRTP", "TokKitRTP", "TokKitSDP"],
                swiftSettings: strict),
        .target(name: "TokKitRTCFuzz", dependencies: ["TokKitRTP", "TokKitSDP"], path: "Fuzz/Harness",
                swiftSettings: strict),

        // MARK: Codecs
        .target(name: "TokKitCodecs", dependencies: ["TokKitMedia", "CVPX", "COpus", "CYUV"], swiftSettings: strict),

        // MARK: Devices
        .target(name: "TokKitCapture", dependencies: ["TokKitMedia", "CV4L2", "CX11", "CYUV"], swiftSettings: strict),
        .target(name: "TokKitAudio", dependencies: ["TokKitMedia", "CALSA"], swiftSettings: strict),

        // MARK: Media pipelines (devices ↔ codecs ↔ peer connections)
        .target(name: "TokKitStreaming", dependencies: ["TokKitMedia", "TokKitCodecs", "TokKitRTP", "TokKitPeer"],
                swiftSettings: strict),

        // MARK: Recording (RTP → WebM without re-encoding; the lowest layer of archiving)
        .target(name: "TokKitRecording", dependencies: ["TokKitRTP", "CAVFormat"],
                swiftSettings: strict),

        // MARK: Test doubles, for users and for TokKit's own tests
        .target(name: "TokKitTesting", dependencies: ["TokKitMedia", "TokKitAudio", "TokKitPeer", "TokKitSDP"],
                swiftSettings: strict),

        // MARK: Sessions
        .target(name: "TokKitProtocol", swiftSettings: strict),
        .target(name: "TokKitProtocolFuzz", dependencies: ["TokKitProtocol"], path: "Fuzz/ProtocolHarness",
                swiftSettings: strict),
        .target(
            name: "TokKit",
            dependencies: [
                "TokKitMedia", "TokKitAudio", "TokKitProtocol",
                "TokKitICE", "TokKitDTLS", "TokKitSRTP", "TokKitRTP", "TokKitSDP", "TokKitPeer", "TokKitStreaming",
                .product(name: "WSClient", package: "swift-websocket"),
                .product(name: "NIOWebSocket", package: "swift-nio"),
                .product(name: "HTTPTypes", package: "swift-http-types"),
                .product(name: "Logging", package: "swift-log"),
            ],
            swiftSettings: strict
        ),
        // MARK: Routed mode: the session server's client of Janus's VideoRoom (issue 15; Docs/Routing.md)
        .target(
            name: "TokKitJanus",
            dependencies: [
                .product(name: "WSClient", package: "swift-websocket"),
                .product(name: "NIOWebSocket", package: "swift-nio"),
                .product(name: "HTTPTypes", package: "swift-http-types"),
                .product(name: "Logging", package: "swift-log"),
            ],
            swiftSettings: strict
        ),
        .target(
            name: "TokKitServer",
            dependencies: [
                "TokKitProtocol", "TokKitJanus", "CTokKitSystem",
                .product(name: "Hummingbird", package: "hummingbird"),
                .product(name: "HummingbirdCore", package: "hummingbird"),
                .product(name: "HummingbirdWebSocket", package: "hummingbird-websocket"),
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOHTTP1", package: "swift-nio"),
                .product(name: "NIOWebSocket", package: "swift-nio"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
                .product(name: "Prometheus", package: "swift-prometheus"),
                .product(name: "GRDB", package: "GRDB.swift"),
                .product(name: "NIOPosix", package: "swift-nio"),
            ],
            resources: [.embedInCode("Browser/tokkit.js"), .embedInCode("Browser/index.html")],
            swiftSettings: strict
        ),
        // MARK: Archiving: the recorder that joins a session and records each stream without decoding (issue 16)
        .target(name: "TokKitArchiving", dependencies: [
                    "TokKit", "TokKitRecording", "TokKitRTP", "TokKitPeer", "TokKitCodecs", "TokKitMedia", "CYUV",
                    "TokKitServer",
                    .product(name: "Logging", package: "swift-log"),
                ], swiftSettings: strict),
        .executableTarget(
            name: "tokkit-server",
            dependencies: [
                "TokKitServer", "TokKitProtocol", "TokKitArchiving",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "UnixSignals", package: "swift-service-lifecycle"),
            ],
            swiftSettings: strict
        ),

        // MARK: Examples (one per tutorial chapter) and benchmarks
        .target(name: "ExampleHelp", path: "Examples/Help", swiftSettings: strict),
        .executableTarget(name: "demo", dependencies: ["ExampleHelp", "TokKit", "TokKitMedia", "TokKitAudio", "TokKitCapture", "TokKitServer", "TokKitProtocol", .product(name: "Logging", package: "swift-log")],
                          path: "Examples/demo", swiftSettings: strict),
        .executableTarget(name: "noise-renderer", dependencies: ["TokKitCapture"],
                          path: "Examples/noise-renderer", swiftSettings: strict),
        .executableTarget(name: "noise-audio", dependencies: ["ExampleHelp", "TokKitAudio"],
                          path: "Examples/noise-audio", swiftSettings: strict),
        .executableTarget(name: "screen-capture", dependencies: ["ExampleHelp", "TokKitCapture"],
                          path: "Examples/screen-capture", swiftSettings: strict),
        .target(name: "ExampleSupport", dependencies: ["TokKit", "TokKitServer", "TokKitArchiving", .product(name: "Logging", package: "swift-log")],
                path: "Examples/Support", swiftSettings: strict),
        .executableTarget(name: "basics", dependencies: ["ExampleHelp", "ExampleSupport", "TokKit", "TokKitCapture"],
                          path: "Examples/basics", swiftSettings: strict),
        .executableTarget(name: "archiving", dependencies: ["ExampleHelp", "ExampleSupport", "TokKit", "TokKitCapture"],
                          path: "Examples/archiving", swiftSettings: strict),
        .executableTarget(name: "controls", dependencies: ["ExampleHelp", "ExampleSupport", "TokKit", "TokKitCapture"],
                          path: "Examples/controls", swiftSettings: strict),
        .executableTarget(name: "custom-renderer", dependencies: ["ExampleHelp", "ExampleSupport", "TokKit", "TokKitMedia", "TokKitCapture"],
                          path: "Examples/custom-renderer", swiftSettings: strict),
        .executableTarget(name: "custom-capturer", dependencies: ["ExampleHelp", "ExampleSupport", "TokKit", "TokKitMedia", "TokKitCapture"],
                          path: "Examples/custom-capturer", swiftSettings: strict),
        .executableTarget(name: "custom-audio-driver", dependencies: ["ExampleHelp", "ExampleSupport", "TokKit", "TokKitMedia", "TokKitAudio"],
                          path: "Examples/custom-audio-driver", swiftSettings: strict),
        .executableTarget(name: "list-cameras", dependencies: ["ExampleHelp", "TokKitCapture"],
                          path: "Examples/list-cameras", swiftSettings: strict),
        .target(name: "CMallocCounter", path: "Benchmarks/CMallocCounter"),
        .target(name: "CBenchSystem", path: "Benchmarks/CBenchSystem"),
        .executableTarget(name: "tokkit-bench", dependencies: ["TokKitMedia", "CYUV", "CMallocCounter"],
                          path: "Benchmarks/tokkit-bench", swiftSettings: strict),
        .executableTarget(name: "renderers-bench", dependencies: ["TokKitCapture"],
                          path: "Benchmarks/renderers-bench", swiftSettings: strict),
        .executableTarget(name: "rtc-bench", dependencies: ["TokKitRTP", "TokKitSDP", "TokKitPeer", "TokKitTesting", "CMallocCounter"], path: "Benchmarks/rtc-bench",
                          swiftSettings: strict),
        .executableTarget(name: "transport-bench", dependencies: ["TokKitDTLS", "TokKitICE", "TokKitSRTP", "CSRTP", "TokKitRTP"],
                          path: "Benchmarks/transport-bench", swiftSettings: strict),
        .executableTarget(name: "signaling-chat", dependencies: ["ExampleSupport",
                              "TokKit", "TokKitServer", .product(name: "ArgumentParser", package: "swift-argument-parser"),
                          ], path: "Examples/signaling-chat", swiftSettings: strict),
        .executableTarget(name: "codecs-bench", dependencies: ["TokKitCodecs", "TokKitMedia", "CVPX", "COpus", "CMallocCounter"],
                          path: "Benchmarks/codecs-bench", swiftSettings: strict),
        .executableTarget(name: "signal-bench", dependencies: ["TokKit", "TokKitServer", "TokKitProtocol"],
                          path: "Benchmarks/signal-bench", swiftSettings: strict),
        .executableTarget(name: "load-bench",
                          dependencies: [.product(name: "NIOCore", package: "swift-nio"),
                                         .product(name: "NIOHTTP1", package: "swift-nio"),
                                         .product(name: "NIOWebSocket", package: "swift-nio"),
                                         .product(name: "NIOPosix", package: "swift-nio")],
                          path: "Benchmarks/load-bench", swiftSettings: strict),
        .executableTarget(name: "call-bench",
                          dependencies: ["TokKitStreaming", "TokKitCodecs", "TokKitMedia", "TokKitPeer", "TokKitSDP", "CBenchSystem",
                                         "TokKitTesting"],
                          path: "Benchmarks/call-bench", swiftSettings: strict),
        .executableTarget(name: "archive-bench",
                          dependencies: ["TokKit", "TokKitServer", "TokKitProtocol", "TokKitArchiving", "TokKitAudio", "TokKitTesting",
                                         .product(name: "Logging", package: "swift-log")],
                          path: "Benchmarks/archive-bench", swiftSettings: strict),
        .executableTarget(name: "routed-bench",
                          dependencies: ["TokKit", "TokKitServer", "TokKitProtocol", "TokKitJanus", "TokKitICE",
                                         "TokKitNetworkLab", "TokKitTesting", "TokKitMedia", "TokKitAudio",
                                         "TokKitRecordingTestSupport",
                                         .product(name: "Logging", package: "swift-log")],
                          path: "Benchmarks/routed-bench", swiftSettings: strict),

        // MARK: Tests (mirroring Sources)
        .testTarget(name: "TokKitMediaTests", dependencies: ["TokKitMedia", "CYUV"], swiftSettings: strict),
        .testTarget(name: "TokKitCaptureTests", dependencies: ["TokKitCapture", "TokKitMedia", "CX11", "CV4L2", "CJPEG"], swiftSettings: strict),
        .target(name: "TokKitICETestSupport", dependencies: ["TokKitICE"], path: "Tests/TokKitICETestSupport",
                swiftSettings: strict),
        .target(name: "TokKitChromiumSupport", dependencies: [
                    .product(name: "WSClient", package: "swift-websocket"), .product(name: "Logging", package: "swift-log"),
                    .product(name: "NIOWebSocket", package: "swift-nio"),
                ], path: "Tests/TokKitChromiumSupport", swiftSettings: strict),
        .executableTarget(name: "network-bench", dependencies: ["TokKitNetworkLab", "TokKitChromiumSupport"],
                          path: "Benchmarks/network-bench", swiftSettings: strict),
        .target(name: "TokKitNetworkLab", dependencies: ["TokKitChromiumSupport"], path: "Tests/TokKitNetworkLab",
                swiftSettings: strict),
        .testTarget(name: "TokKitNetworkLabTests", dependencies: ["TokKitNetworkLab", "TokKitChromiumSupport", "TokKitTesting"],
                    swiftSettings: strict),
        .testTarget(name: "TokKitJanusTests", dependencies: [
                        "TokKitJanus", "TokKitNetworkLab", "TokKitPeer", "TokKitSDP", "TokKitICE", "TokKitRTP",
                        .product(name: "Logging", package: "swift-log"),
                    ], swiftSettings: strict),
        .testTarget(name: "TokKitRoutedTests", dependencies: [
                        "TokKit", "TokKitServer", "TokKitJanus", "TokKitNetworkLab", "TokKitTesting", "TokKitICE", "TokKitAudio",
                        "TokKitProtocol", "TokKitChromiumSupport", .product(name: "Logging", package: "swift-log"),
                    ], swiftSettings: strict),
        .testTarget(name: "TokKitICETests", dependencies: ["TokKitICE", "TokKitICETestSupport"], swiftSettings: strict),
        .testTarget(name: "TokKitSRTPTests", dependencies: ["TokKitSRTP"], swiftSettings: strict),
        .testTarget(name: "TokKitDTLSTests", dependencies: ["TokKitDTLS", "TokKitICE", "TokKitSRTP", "TokKitICETestSupport"], swiftSettings: strict),
        .testTarget(name: "TokKitAudioTests", dependencies: ["TokKitAudio", "TokKitMedia"], swiftSettings: strict),
        .testTarget(name: "TokKitTests", dependencies: ["TokKit", "TokKitProtocol", "TokKitServer", "TokKitPeer", "TokKitStreaming", "TokKitTesting", "TokKitAudio", "TokKitNetworkLab"], swiftSettings: strict),
        .executableTarget(name: "tokkit-test-peer", dependencies: ["TokKit", "TokKitAudio", "TokKitTesting", .product(name: "Logging", package: "swift-log")],
                          path: "Tests/TokKitTestPeer", swiftSettings: strict),
        .executableTarget(name: "tokkit-lab-peer", dependencies: ["TokKit", "TokKitAudio", "TokKitCapture", "TokKitTesting", .product(name: "Logging", package: "swift-log")],
                          path: "Tests/TokKitLabPeer", swiftSettings: strict),
        .testTarget(name: "TokKitProtocolTests", dependencies: ["TokKitProtocol"], swiftSettings: strict),
        .testTarget(
            name: "TokKitServerTests",
            dependencies: [
                "TokKitServer", "TokKitProtocol", .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "WSClient", package: "swift-websocket"),
                .product(name: "HTTPTypes", package: "swift-http-types"),
                .product(name: "Hummingbird", package: "hummingbird"),
                .product(name: "HummingbirdTesting", package: "hummingbird"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOWebSocket", package: "swift-nio"),
                .product(name: "Logging", package: "swift-log"),
            ],
            swiftSettings: strict
        ),
        .testTarget(name: "ExamplesTests", dependencies: ["ExampleHelp", "ExampleSupport", "TokKit", "TokKitNetworkLab"],
                    swiftSettings: strict),
        .testTarget(name: "TokKitRTPTests", dependencies: ["TokKitRTP"], swiftSettings: strict),
        .testTarget(name: "TokKitSDPTests", dependencies: ["TokKitSDP", "TokKitChromiumSupport"], swiftSettings: strict),
        .testTarget(name: "TokKitPeerTests", dependencies: ["TokKitPeer", "TokKitSDP", "TokKitRTP", "TokKitDTLS", "TokKitChromiumSupport", "TokKitTesting"],
                    swiftSettings: strict),
        .target(name: "TokKitRecordingTestSupport", dependencies: ["TokKitCodecs", "TokKitMedia", "TokKitTesting"],
                path: "Tests/TokKitRecordingTestSupport", swiftSettings: strict),
        .testTarget(name: "TokKitArchivingTests",
                    dependencies: ["TokKitArchiving", "TokKit", "TokKitServer", "TokKitProtocol", "TokKitTesting", "TokKitAudio",
                                   "TokKitMedia", "TokKitArchivingTestSupport", "TokKitRecordingTestSupport", "TokKitRTP", "TokKitPeer", "TokKitCodecs",
                                   .product(name: "Logging", package: "swift-log")],
                    swiftSettings: strict),
        .target(name: "TokKitArchivingTestSupport", dependencies: ["TokKitMedia", "TokKitTesting"],
                path: "Tests/TokKitArchivingTestSupport", swiftSettings: strict),
        // A publisher in a process of its own (its own audio device, so its own tone), for ComposedArchiverTests.
        .executableTarget(name: "tokkit-archive-test-publisher",
                          dependencies: ["TokKit", "TokKitAudio", "TokKitMedia", "TokKitArchivingTestSupport",
                                         "TokKitRecordingTestSupport"],
                          path: "Tests/TokKitArchiveTestPublisher", swiftSettings: strict),
        .testTarget(name: "TokKitRecordingTests",
                    dependencies: ["TokKitRecording", "TokKitRecordingTestSupport", "TokKitRTP", "TokKitCodecs", "TokKitMedia"],
                    swiftSettings: strict),
        .executableTarget(name: "tokkit-webm-crash-writer",
                          dependencies: ["TokKitRecording", "TokKitRecordingTestSupport"],
                          path: "Tests/TokKitWebMCrashWriter", swiftSettings: strict),
        .testTarget(name: "TokKitCodecsTests", dependencies: ["TokKitCodecs", "TokKitMedia", "TokKitTesting"],
                    swiftSettings: strict),
        .testTarget(name: "TokKitRTCFuzzTests", dependencies: ["TokKitRTCFuzz"], swiftSettings: strict),
        .testTarget(name: "TokKitProtocolFuzzTests", dependencies: ["TokKitProtocolFuzz", "TokKitProtocol"], swiftSettings: strict),
        .testTarget(name: "TokKitStreamingTests",
                    dependencies: ["TokKitStreaming", "TokKitMedia", "TokKitCodecs", "TokKitPeer", "TokKitRTP",
                                   "TokKitICETestSupport", "TokKitTesting"],
                    swiftSettings: strict),
        .testTarget(name: "TokKitBrowserTests", dependencies: [
                        "TokKit", "TokKitServer", "TokKitProtocol", "TokKitMedia", "TokKitAudio", "TokKitTesting",
                        "TokKitChromiumSupport", "TokKitArchiving",
                        .product(name: "Hummingbird", package: "hummingbird"),
                        .product(name: "HummingbirdTesting", package: "hummingbird"),
                        .product(name: "Logging", package: "swift-log"),
                    ], swiftSettings: strict),
    ]
)
