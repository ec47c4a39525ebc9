use super::*;

#[test]
fn a_zoom_path_may_start_with_the_step() {
    assert_eq!(without_root("ProfilerStep/Net[0]", "ProfilerStep"), "Net[0]");
    assert_eq!(without_root("ProfilerStep", "ProfilerStep"), "");
    assert_eq!(
        without_root("Net[0]/ProfilerStep", "ProfilerStep"),
        "Net[0]/ProfilerStep"
    );
    assert_eq!(without_root("ProfilerSteps/x", "ProfilerStep"), "ProfilerSteps/x");
}

#[test]
fn module_keys_drop_the_instance_number() {
    assert_eq!(module_key("nn.Module: Bottleneck_43"), Some("Bottleneck"));
    assert_eq!(module_key("nn.Module: Linear_0"), Some("Linear"));
    assert_eq!(module_key("nn.Module: My_Block_7"), Some("My_Block"));
    assert_eq!(module_key("nn.Module: ResNet"), Some("ResNet"));
    assert_eq!(module_key("nn.Module: Weird_"), Some("Weird_"));
    assert_eq!(module_key("aten::mm"), None);
}
