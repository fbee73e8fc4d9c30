// libFuzzer entry point (built with -parse-as-library, so libFuzzer provides main); build and run with Fuzz/run server (see Docs/Fuzzing.md).
import TokKitProtocolFuzz

@_cdecl("LLVMFuzzerTestOneInput")
public func testOneInput(_ data: UnsafePointer<UInt8>?, _ size: Int) -> CInt {
    fuzzServerMessage(UnsafeRawBufferPointer(start: data, count: size))
    return 0
}
