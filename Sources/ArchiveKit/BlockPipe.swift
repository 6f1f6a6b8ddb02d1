import CArchive
import Foundation

/// Hands blocks of one entry's data from a worker thread, which decompresses them with
/// `archive_read_data`, to the reading thread, through a fixed set of buffers: while the
/// reader hashes and writes one block, the worker decompresses the next.
///
/// The worker alone touches libarchive from `start()` until it has seen the end of the
/// data, a failure, or `stop()`; `stop()` returns only once it has let go.
///
/// `@unchecked Sendable`: the two threads wait for each other, which `Mutex` cannot do;
/// every stored `var` is touched only with `condition` held, and the archive handle and
/// the buffers are used by one thread at a time, as said above.
final class BlockPipe: @unchecked Sendable {
    struct Block {
        let index: Int
        let count: Int
    }

    /// `archive_read_data` failed; libarchive holds the reason.
    struct Failure: Error {}

    let buffers: [UnsafeMutableRawBufferPointer]
    private let archive: OpaquePointer
    private let condition = NSCondition()
    private var free: [Int]
    private var ready: [Block] = []
    private var isFinished = false
    private var hasFailed = false
    private var isStopped = false
    private var isWorkerDone = false
    private var isStarted = false

    init(archive: OpaquePointer, blockSize: Int, depth: Int) {
        self.archive = archive
        self.buffers = (0..<max(depth, 2)).map { _ in
            UnsafeMutableRawBufferPointer.allocate(byteCount: blockSize, alignment: 16)
        }
        self.free = Array(buffers.indices)
    }

    func start() {
        condition.lock()
        isStarted = true
        condition.unlock()
        Thread.detachNewThread { [self] in work() }
    }

    private func work() {
        while true {
            condition.lock()
            while free.isEmpty && !isStopped { condition.wait() }
            if isStopped {
                isWorkerDone = true
                condition.broadcast()
                condition.unlock()
                return
            }
            let index = free.removeFirst()
            condition.unlock()

            let count = archive_read_data(archive, buffers[index].baseAddress, buffers[index].count)

            condition.lock()
            if count > 0 {
                ready.append(Block(index: index, count: count))
            } else {
                if count == 0 { isFinished = true } else { hasFailed = true }
                isWorkerDone = true
            }
            condition.broadcast()
            condition.unlock()
            if count <= 0 { return }
        }
    }

    /// The next block in order, or nil after the last; throws `Failure` once the blocks
    /// before a failed read have been handed out.
    func next() throws -> Block? {
        condition.lock()
        defer { condition.unlock() }
        while ready.isEmpty && !isFinished && !hasFailed { condition.wait() }
        if !ready.isEmpty { return ready.removeFirst() }
        if hasFailed { throw Failure() }
        return nil
    }

    /// Gives a consumed block's buffer back to the worker.
    func recycle(_ block: Block) {
        condition.lock()
        free.append(block.index)
        condition.broadcast()
        condition.unlock()
    }

    /// Asks the worker to stop and waits until it no longer uses libarchive.
    func stop() {
        condition.lock()
        isStopped = true
        condition.broadcast()
        while isStarted && !isWorkerDone { condition.wait() }
        condition.unlock()
    }

    /// Frees the buffers; the worker must be done (`next()` returned nil or threw, or
    /// `stop()` returned).
    func deallocate() {
        for buffer in buffers { buffer.deallocate() }
    }
}
