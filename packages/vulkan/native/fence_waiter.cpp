#include "fence_waiter.hpp"

#include <atomic>
#include <condition_variable>
#include <deque>
#include <mutex>
#include <thread>

#include "errors.hpp"

namespace {

class FenceWaiter;

// One pending wait: the promise to settle and what the GPU work uses.
struct FenceWait {
  FenceWaiter* waiter;
  Napi::Promise::Deferred deferred;
  std::shared_ptr<CommandBatch> batch;
  std::shared_ptr<void> keepAlive;
  CompletionFn onComplete;
  VkResult result = VK_SUCCESS;
};

// Polling interval of a fence wait, so that shutdown never waits long for
// GPU work that nobody will collect.
constexpr uint64_t kWaitSliceNs = 50'000'000;

class FenceWaiter {
 public:
  // The environment's waiter, started on first use.
  static FenceWaiter& of(Napi::Env env) {
    FenceWaiter* waiter = env.GetInstanceData<FenceWaiter>();
    if (!waiter) {
      waiter = new FenceWaiter(env);
      // Owned by the thread-safe function's finalizer, not by instance data.
      env.SetInstanceData<FenceWaiter, &FenceWaiter::keep>(waiter);
    }
    return *waiter;
  }

  // Main thread.
  void enqueue(Napi::Env env, FenceWait* wait) {
    // Keep the event loop alive only while something is pending.
    if (pending_++ == 0) tsfn_.Ref(env);
    {
      std::lock_guard<std::mutex> lock(mutex_);
      queue_.push_back(wait);
    }
    wakeup_.notify_one();
  }

 private:
  explicit FenceWaiter(Napi::Env env) {
    // The finalizer runs on the main thread when the environment is torn
    // down; it stops the thread before the thread-safe function goes away,
    // so the thread never calls into a destroyed one.
    tsfn_ = Napi::ThreadSafeFunction::New(env, Napi::Function(), "ppl-vulkan-fence-wait", 0, 1, this,
                                          [](Napi::Env, FenceWaiter* self) {
                                            self->stop();
                                            delete self;
                                          });
    tsfn_.Unref(env);
    thread_ = std::thread([this] { run(); });
  }

  static void keep(Napi::Env, FenceWaiter*) {}

  void stop() {
    stopping_ = true;
    wakeup_.notify_one();
    if (thread_.joinable()) thread_.join();
  }

  // Waiter thread: no JS, no Vulkan object destruction.
  void run() {
    for (;;) {
      FenceWait* wait = nullptr;
      {
        std::unique_lock<std::mutex> lock(mutex_);
        wakeup_.wait(lock, [this] { return stopping_ || !queue_.empty(); });
        if (stopping_) return;  // pending waits are abandoned at teardown
        wait = queue_.front();
        queue_.pop_front();
      }
      VkResult result;
      do {
        result = wait->batch->waitBlocking(kWaitSliceNs);
      } while (result == VK_TIMEOUT && !stopping_);
      if (stopping_) return;
      wait->result = result;
      if (tsfn_.BlockingCall(wait, deliver) != napi_ok) return;  // environment closing
    }
  }

  // Main thread: settle the promise and release the wait's references (so
  // Vulkan objects are only destroyed on the main thread).
  static void deliver(Napi::Env env, Napi::Function, FenceWait* wait) {
    if (env == nullptr) return;  // environment torn down before delivery
    FenceWaiter* self = wait->waiter;
    {
      Napi::HandleScope scope(env);
      wait->batch->finished();
      if (wait->result != VK_SUCCESS) {
        wait->deferred.Reject(makeVulkanError(env, VulkanFailure{"vkWaitForFences", wait->result, ""}).Value());
      } else {
        try {
          wait->deferred.Resolve(wait->onComplete ? wait->onComplete(env) : env.Undefined());
        } catch (const Napi::Error& error) {
          wait->deferred.Reject(error.Value());
        }
      }
    }
    delete wait;
    if (--self->pending_ == 0) self->tsfn_.Unref(env);
  }

  Napi::ThreadSafeFunction tsfn_;
  std::thread thread_;
  std::mutex mutex_;
  std::condition_variable wakeup_;
  std::deque<FenceWait*> queue_;
  std::atomic<bool> stopping_{false};
  size_t pending_ = 0;  // main thread only
};

}  // namespace

Napi::Promise waitAsync(Napi::Env env, std::shared_ptr<CommandBatch> batch, std::shared_ptr<void> keepAlive,
                        CompletionFn onComplete) {
  FenceWaiter& waiter = FenceWaiter::of(env);
  auto* wait = new FenceWait{&waiter, Napi::Promise::Deferred::New(env), std::move(batch), std::move(keepAlive),
                             std::move(onComplete)};
  Napi::Promise promise = wait->deferred.Promise();
  waiter.enqueue(env, wait);
  return promise;
}
