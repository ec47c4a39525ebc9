use super::*;
use crate::model::store::{FlowEnd, MemorySample};

fn parse(text: &str) -> ParsedTrace {
    parse_trace(
        text.as_bytes(),
        Path::new("t.json"),
        Compression::None,
        &AttrRequest::default(),
    )
    .unwrap()
}

#[test]
fn memory_instants_devices_and_device_use_are_captured() {
    let t = parse(
        r#"{"deviceProperties": [{"id": 0, "name": "NVIDIA H100", "totalGlobalMem": 85018279936, "computeMajor": 9},
                                 "junk", {"name": "no id"}, {"id": 1, "name": "second"}],
        "traceEvents": [
          {"ph": "i", "cat": "cpu_instant_event", "name": "[memory]", "ts": 1.5,
           "args": {"Total Reserved": 0, "Total Allocated": 4096, "Bytes": 4096, "Device Id": 0, "Device Type": 1}},
          {"ph": "i", "name": "[memory]", "ts": 2, "args": {"Device Type": 0, "Device Id": -1, "Bytes": -4}},
          {"ph": "i", "name": "[memory]", "ts": 3, "args": {"Bytes": 4}},
          {"ph": "X", "cat": "kernel", "name": "k", "ts": 2, "dur": 1, "args": {"device": 1, "stream": 7}},
          {"ph": "X", "cat": "kernel", "name": "k", "ts": 3, "dur": 1, "args": {"device": 1, "stream": 7}},
          {"ph": "X", "cat": "gpu_memcpy", "name": "m", "ts": 4, "dur": 1, "args": {"device": 0, "stream": 7}}
        ]}"#,
    );
    assert_eq!(
        t.devices,
        vec![
            DeviceProperties {
                id: 0,
                name: "NVIDIA H100".into(),
                total_global_mem: Some(85018279936)
            },
            DeviceProperties {
                id: 1,
                name: "second".into(),
                total_global_mem: None
            },
        ]
    );
    // The third has no device: not a sample.
    assert_eq!(t.memory.len(), 2);
    assert_eq!(
        t.memory.get(0),
        MemorySample {
            ts_ns: 1500,
            device_type: 1,
            device_id: 0,
            total_allocated: Some(4096),
            bytes: 4096
        }
    );
    assert_eq!(t.memory.get(1).total_allocated, None);
    assert_eq!(t.memory.get(1).bytes, -4);
    assert_eq!(t.device_use, vec![(0, 1), (1, 2)]);
    assert_eq!(t.events.len(), 3);
}

#[test]
fn fwdbwd_flow_ends_are_kept_and_other_flows_are_not() {
    let t = parse(
        r#"{"traceEvents": [
          {"ph": "X", "cat": "cpu_op", "name": "aten::t", "pid": 1, "tid": 1, "ts": 10, "dur": 1},
          {"ph": "s", "id": 17, "pid": 1, "tid": 1, "ts": 10.5, "cat": "fwdbwd", "name": "fwdbwd"},
          {"ph": "f", "id": 17, "pid": 1, "tid": "two", "ts": 20, "cat": "fwdbwd", "name": "fwdbwd", "bp": "e"},
          {"ph": "s", "id": 3, "pid": 1, "tid": 1, "ts": 10, "cat": "ac2g", "name": "ac2g"},
          {"ph": "f", "id": "x", "pid": 1, "tid": 1, "ts": 10, "cat": "fwdbwd"},
          {"ph": "t", "id": 4, "pid": 1, "tid": 1, "ts": 10, "cat": "fwdbwd"}
        ]}"#,
    );
    assert_eq!(
        t.flows.ends,
        vec![
            FlowEnd {
                id: 17,
                start: true,
                ts_ns: 10_500,
                thread: 0
            },
            FlowEnd {
                id: 17,
                start: false,
                ts_ns: 20_000,
                thread: 1
            },
        ]
    );
    assert_eq!(
        t.flows.threads,
        vec![("1".to_string(), "1".to_string()), ("1".to_string(), "two".to_string())]
    );
    // Flows are not ops, and their threads do not enter the string table.
    assert_eq!(t.events.len(), 1);
    assert!(t.strings.iter().all(|(_, s)| s != "two"));
}

#[test]
fn device_properties_that_are_not_an_array_describe_nothing() {
    let t = parse(r#"{"deviceProperties": {"id": 0}, "traceEvents": []}"#);
    assert!(t.devices.is_empty());
}

#[test]
fn a_broken_device_object_is_an_error_at_its_place() {
    let text = r#"{"deviceProperties": [{"id": 0, 5: 1}], "traceEvents": []}"#;
    let err = parse_trace(
        text.as_bytes(),
        Path::new("t.json"),
        Compression::None,
        &AttrRequest::default(),
    )
    .unwrap_err()
    .to_string();
    let at = text.find("5:").unwrap();
    assert!(err.contains(&format!("byte {at}")), "{err}");
}

#[test]
fn the_device_attribute_is_still_an_attribute() {
    let request = AttrRequest::build(crate::input::attrs::Preset::Default, &["device".to_string()], &[]).unwrap();
    let t = parse_trace(
        r#"{"traceEvents": [{"ph": "X", "cat": "kernel", "name": "k", "ts": 2, "dur": 1, "args": {"device": 3}}]}"#
            .as_bytes(),
        Path::new("t.json"),
        Compression::None,
        &request,
    )
    .unwrap();
    let (col, _) = t.attrs.column("device").unwrap();
    assert_eq!(t.attrs.text(col, 0, &t.strings), "3");
    assert_eq!(t.device_use, vec![(3, 1)]);
}
