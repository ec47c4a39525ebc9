//! Where an event ran: the one definition of host and device (docs/semantics.md#host-and-device-events).
//!
//! - Host categories are host whatever their `args` say: `cpu_op`, `Operator`, `user_annotation`,
//!   `python_function`, `cuda_runtime`, `cuda_driver`, `Runtime`, and every `*_runtime`
//!   (inductor's Triton launch `cpu_op`s carry `args.stream` and are still host work).
//! - Device categories: `kernel`, `gpu_memcpy`, `gpu_memset`, `gpu_user_annotation`, and the old
//!   `Kernel`, `Memcpy`, `Memset`.
//! - Any other category is device when its stream is ≥ 0, host otherwise.
//!
//! `gpu_user_annotation` spans are device events but not device work: they are drawn over the
//! kernels they annotate, so busy time and the kernel view leave them out ([`Place::Annotation`]).

/// Categories that are host work whatever their stream (besides every `*_runtime`).
pub const HOST_CATEGORIES: [&str; 7] = [
    "cpu_op",
    "Operator",
    "user_annotation",
    "python_function",
    "cuda_runtime",
    "cuda_driver",
    "Runtime",
];

/// Categories of events that run on the device, whatever their stream says.
pub const DEVICE_CATEGORIES: [&str; 7] = [
    "kernel",
    "gpu_memcpy",
    "gpu_memset",
    "gpu_user_annotation",
    "Kernel",
    "Memcpy",
    "Memset",
];

/// The device category that annotates rather than works.
pub const DEVICE_ANNOTATION: &str = "gpu_user_annotation";

/// Where one event ran.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Place {
    /// Host work: operators, annotations, Python frames, runtime calls.
    #[default]
    Host,
    /// Device work: kernels, copies, sets, and other device categories.
    Device,
    /// A `gpu_user_annotation` span on the device timeline.
    Annotation,
}

impl Place {
    /// Whether the event ran on the device timeline (device work or a device annotation).
    pub fn on_device(self) -> bool {
        self != Place::Host
    }
}

/// What a category says about where its events ran.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum CategoryPlace {
    /// Always this place.
    Fixed(Place),
    /// Device when the stream is ≥ 0, host otherwise.
    ByStream,
}

/// Classifies a category name (docs/semantics.md#host-and-device-events).
pub fn category_place(cat: &str) -> CategoryPlace {
    if HOST_CATEGORIES.contains(&cat) || cat.ends_with("_runtime") {
        CategoryPlace::Fixed(Place::Host)
    } else if cat == DEVICE_ANNOTATION {
        CategoryPlace::Fixed(Place::Annotation)
    } else if DEVICE_CATEGORIES.contains(&cat) {
        CategoryPlace::Fixed(Place::Device)
    } else {
        CategoryPlace::ByStream
    }
}

/// Where an event of a category with this stream ran.
pub fn place_of(cat: CategoryPlace, stream: i64) -> Place {
    match cat {
        CategoryPlace::Fixed(p) => p,
        CategoryPlace::ByStream if stream >= 0 => Place::Device,
        CategoryPlace::ByStream => Place::Host,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn host_categories_are_host_whatever_the_stream() {
        for cat in [
            "cpu_op",
            "Operator",
            "cuda_driver",
            "Runtime",
            "mtia_runtime",
            "xpu_runtime",
        ] {
            assert_eq!(place_of(category_place(cat), 7), Place::Host, "{cat}");
        }
    }

    #[test]
    fn device_categories_and_others_by_stream() {
        assert_eq!(place_of(category_place("kernel"), -1), Place::Device);
        assert_eq!(place_of(category_place("Memcpy"), -1), Place::Device);
        assert_eq!(place_of(category_place("gpu_user_annotation"), -1), Place::Annotation);
        assert_eq!(place_of(category_place("mtia_ccp_events"), 0), Place::Device);
        assert_eq!(place_of(category_place("mtia_ccp_events"), -1), Place::Host);
        assert_eq!(place_of(category_place("cuda_sync"), 3), Place::Device);
        assert!(Place::Annotation.on_device() && !Place::Host.on_device());
    }
}
