"""Materials copied from a template (`bl.material_cache`) are the materials a fresh build makes, in every
environment; a copy changed in place (weathering) leaves its template and later copies alone; a template that
went missing is built again; arguments that are not plain values are never keyed."""
import zlib

import numpy as np
import pytest

bpy = pytest.importorskip("bpy")

from realitybench_addon import api, pipeline  # noqa: E402
from realitybench_addon.bl import analytic, facade, material_cache, vegetation  # noqa: E402
from realitybench_addon.bl import materials as mats  # noqa: E402

SKIP_NODE_PROPS = {"location", "location_absolute", "width", "height", "dimensions", "select", "show_options",
                   "show_preview", "hide", "mute", "show_texture", "warning_propagation"}


def _value(v):
    if isinstance(v, (str, bool, int, type(None), set)):
        return v if not isinstance(v, set) else tuple(sorted(v))
    try:
        return tuple(round(float(x), 7) for x in v)
    except TypeError:
        return round(v, 7) if isinstance(v, float) else v


def node_print(node) -> tuple:
    """Everything about a node that shapes a render: its settings, inputs and colour ramp."""
    props = []
    for prop in node.bl_rna.properties:
        if prop.identifier in SKIP_NODE_PROPS or prop.type in {"POINTER", "COLLECTION"} or prop.is_readonly:
            continue
        props.append((prop.identifier, _value(getattr(node, prop.identifier))))
    inputs = tuple((s.identifier, _value(getattr(s, "default_value", None))) for s in node.inputs)
    ramp = getattr(node, "color_ramp", None)
    stops = tuple((round(e.position, 7), _value(e.color)) for e in ramp.elements) if ramp else ()
    image = getattr(node, "image", None)
    return node.bl_idname, node.name, tuple(props), inputs, stops, image.name if image else None


def material_print(mat) -> tuple:
    material = (_value(mat.diffuse_color), round(mat.roughness, 7), round(mat.metallic, 7), mat.pass_index)
    if mat.node_tree is None:
        return material
    nodes = tuple(sorted(node_print(n) for n in mat.node_tree.nodes))
    links = tuple(sorted((lk.from_node.name, lk.from_socket.identifier, lk.to_node.name, lk.to_socket.identifier)
                         for lk in mat.node_tree.links))
    return material, nodes, links


def scene_materials() -> dict:
    keep = material_cache.template_names()
    return {m.name: material_print(m) for m in bpy.data.materials if m.name not in keep}


def build(spec) -> dict:
    pipeline.SceneCache().get(spec)
    return scene_materials()


@pytest.mark.parametrize("env", sorted(api.environments()))
def test_copied_materials_equal_fresh_ones(env):
    """Per environment, a scene drawn by seed is built cold; then another scene, whose builds keep templates
    with its own seeds, colours and sizes in them; then the first scene twice more, from copies given its own
    values (and, the last time, from templates of its own arguments too): every material equals the cold build's.
    Weathering changes copies in place between the builds."""
    rng = np.random.default_rng(zlib.crc32(env.encode()))
    first, other = (pipeline.plan_frame(env, int(rng.integers(1000)), "random", int(rng.integers(100)))
                    for _ in range(2))
    material_cache.clear()
    fresh = build(first)
    build(other)
    for _ in range(2):
        copied = material_cache.stats["copied"]
        again = build(first)
        assert material_cache.stats["copied"] > copied  # the build did copy templates
        assert sorted(again) == sorted(fresh)
        for name in fresh:
            assert again[name] == fresh[name], f"{env}: material {name} differs when copied"


VARYING = {  # builder: (arguments A, arguments B), differing in every argument left out of the key
    "lawn": (vegetation.lawn_material, ((0.2, 0.4, 0.1),), dict(stripe_azimuth_deg=20.0, stripe_width_m=0.8, dry=0.3,
                                                              seed=5, stripe_center=(1.0, 2.0), stripe_radius_m=25.0),
             ((0.3, 0.35, 0.12),), dict(stripe_azimuth_deg=-70.0, stripe_width_m=1.1, dry=0.6, seed=91,
                                        stripe_center=(-4.0, 0.5), stripe_radius_m=40.0)),
    "window glass": (facade.window_glass_material, (), dict(seed=3, blinds_share=0.5), (), dict(seed=12, blinds_share=0.5)),
    "trim": (facade.trim_material, ((0.7, 0.7, 0.68),), dict(seed=4), ((0.7, 0.7, 0.68),), dict(seed=40)),
    "weathered siding": (facade.weathered, (mats.lap_siding, ((0.5, 0.45, 0.4),)), dict(seed=2, streaks=0.6),
                         (mats.lap_siding, ((0.5, 0.45, 0.4),)), dict(seed=77, streaks=0.6)),
}


@pytest.mark.parametrize("builder", sorted(VARYING))
def test_a_template_made_with_other_values_copies_into_a_fresh_build(builder):
    """Built cold with arguments A; twice with B (a template holding B's values); then A from B's template:
    equal to the cold build, and different from B's (every varying value was set)."""
    build_fn, args_a, kwargs_a, args_b, kwargs_b = VARYING[builder]
    analytic.reset_scene()
    material_cache.clear()
    fresh_a = material_print(build_fn("RB_A", *args_a, **kwargs_a))
    fresh_b = material_print(build_fn("RB_B", *args_b, **kwargs_b))
    build_fn("RB_B", *args_b, **kwargs_b)
    copied = material_cache.stats["copied"]
    copy_a = build_fn("RB_A2", *args_a, **kwargs_a)
    assert material_cache.stats["copied"] > copied
    assert material_print(copy_a) == fresh_a
    assert fresh_a != fresh_b


def test_a_copy_changed_in_place_leaves_its_template_alone():
    analytic.reset_scene()
    material_cache.clear()
    mats.lap_siding("RB_Wall", (0.6, 0.5, 0.4))
    mats.lap_siding("RB_Wall", (0.6, 0.5, 0.4))  # seen twice: kept as a template
    (template_name,) = material_cache.template_names()
    template = bpy.data.materials[template_name]
    pristine = material_print(template)
    copy = mats.lap_siding("RB_Wall", (0.6, 0.5, 0.4))
    assert copy.name != template_name and copy.node_tree is not template.node_tree
    facade.weather(copy, seed=3)
    assert material_print(template) == pristine
    assert material_print(copy) != pristine
    assert material_print(mats.lap_siding("RB_Wall2", (0.6, 0.5, 0.4))) == pristine
    with pytest.raises(ValueError, match="weathered already"):  # its values are found by node name: once only
        facade.weather(copy, seed=4)


def test_templates_survive_a_scene_reset_and_are_not_saved_users():
    analytic.reset_scene()
    material_cache.clear()
    for _ in range(2):
        mats.principled("RB_Paint", (0.2, 0.3, 0.4), roughness=0.3)
    (name,) = material_cache.template_names()
    analytic.reset_scene()
    template = bpy.data.materials.get(name)
    assert template is not None and template.users == 0 and not template.use_fake_user
    assert name.startswith(".")  # hidden from Blender's lists
    assert material_cache._SESSION in name  # another session's template (a recovered autosave) never matches
    assert "RB_Paint" not in bpy.data.materials


def test_a_missing_template_is_built_again():
    analytic.reset_scene()
    material_cache.clear()
    for _ in range(2):
        mats.brick("RB_Brick", (0.5, 0.2, 0.1))
    (name,) = material_cache.template_names()
    expected = material_print(bpy.data.materials[name])
    bpy.data.materials.remove(bpy.data.materials[name])  # a purge of orphan data, say
    built = material_cache.stats["built"]
    again = mats.brick("RB_Brick2", (0.5, 0.2, 0.1))
    assert material_cache.stats["built"] == built + 1
    assert material_print(again) == expected
    mats.brick("RB_Brick3", (0.5, 0.2, 0.1))  # seen twice since: a new template
    (new_name,) = material_cache.template_names()
    assert material_print(bpy.data.materials[new_name]) == expected


def test_other_arguments_are_built_every_time():
    analytic.reset_scene()
    material_cache.clear()
    built = material_cache.stats["built"]
    color = type("Colour", (), {"__iter__": lambda self: iter((0.1, 0.2, 0.3))})()  # not a plain value
    for _ in range(3):
        mats.principled("RB_Odd", tuple(color))
        mats.shingle("RB_Odd", color)
    assert material_cache.stats["built"] - built == 5  # the plain tuple was copied once
    assert len(material_cache.template_names()) == 1


def test_materials_with_images_are_never_templates():
    analytic.reset_scene()
    material_cache.clear()
    image = bpy.data.images.new("RB_Test", 4, 4)
    built = material_cache.stats["built"]
    calls = 3
    for _ in range(calls):
        _image_builder("RB_Img", 0.4, image=image.name)
    assert material_cache.stats["built"] - built == calls
    assert material_cache.template_names() == set()


@material_cache.reused
def _image_builder(name, roughness, image):
    return mats.image_material(name, bpy.data.images[image], roughness=roughness)


def test_keys_tell_types_and_values_apart():
    plain = material_cache._plain
    assert plain((1, 2)) == plain([1, 2])
    assert plain(1) != plain(1.0) != plain(True)
    assert plain(np.float64(0.5)) == plain(0.5)
    assert plain(np.array([0.5, 1.0])) != plain((0.5, 1.0))
    for hostile in (object(), np.random.default_rng(0), {"a": 1}, np.zeros(100)):
        with pytest.raises(material_cache._NotPlain):
            plain(hostile)
