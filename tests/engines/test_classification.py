from decimal import Decimal as D

import pytest

from apps.compliance.engines.classification import (
    RULE_VERSION,
    PartFigures,
    classify,
    compute_tpp,
    fmt,
)


def h100(**kw):
    # Dense FP8 ≈1,979 TFLOPS → TPP 1,979 × 8 = 15,832; die 814 mm² → PD 19.45.
    kw.setdefault("dense_tops", {8: D(1979)})
    kw.setdefault("die_area_mm2", D(814))
    kw.setdefault("data_centre", True)
    return PartFigures("NVIDIA H100 SXM5 80GB", "accelerator", **kw)


def card(tpp=None, die=None, data_centre=True, name="card"):
    return PartFigures(
        name,
        "accelerator",
        tpp=None if tpp is None else D(tpp),
        die_area_mm2=None if die is None else D(die),
        data_centre=data_centre,
    )


# --- TPP ----------------------------------------------------------------------------------------


def test_compute_tpp_from_dense_fp8():
    tpp, how = compute_tpp(h100())
    assert tpp == D(15832)
    assert how == "dense 8-bit 1,979 TOPS × 8 = 15,832"


def test_compute_tpp_takes_the_highest_bit_length_product_and_names_the_others():
    # A100: dense BF16 312 × 16 = 4,992 beats INT8 624 × 8 = 4,992? Equal: the longer bit length is named.
    tpp, how = compute_tpp(PartFigures("A100", "accelerator", dense_tops={8: D(624), 16: D(312)}))
    assert tpp == D(4992)
    assert how.startswith("dense 16-bit 312 TOPS × 16 = 4,992")
    assert "8-bit 624 × 8 = 4,992" in how
    tpp, _ = compute_tpp(PartFigures("x", "accelerator", dense_tops={8: D(1000), 16: D(400), 32: D(60)}))
    assert tpp == D(8000)


def test_compute_tpp_prefers_the_given_figure():
    tpp, how = compute_tpp(PartFigures("x", "accelerator", tpp=D(5000), dense_tops={8: D(10)}))
    assert (tpp, how) == (D(5000), "TPP 5,000 as given")


def test_compute_tpp_without_figures():
    assert compute_tpp(PartFigures("x", "accelerator"))[0] is None


# --- 3A090 ---------------------------------------------------------------------------------------


def test_h100_is_3a090a_and_names_its_figures():
    result = classify(h100())
    assert (result.eccn, result.status) == ("3A090.a", "classified")
    assert "dense 8-bit 1,979 TOPS × 8 = 15,832" in result.reasoning
    assert "PD = TPP 15,832 / die area 814 mm² = 19.45" in result.reasoning
    assert "TPP 15,832 ≥ 4,800 → 3A090.a (PD not needed)" in result.reasoning
    assert result.figures_used["tpp"] == "15,832"
    assert result.figures_used["pd"] == "19.45"
    assert result.figures_used["dense_tops"] == "8-bit 1,979"
    assert result.missing == []
    assert result.rule_version == RULE_VERSION == "ccl-2026-07-23.1"
    assert result.needs_confirmation is False


def test_a100_bf16_is_3a090a():
    result = classify(PartFigures("A100", "accelerator", dense_tops={16: D(312)}, die_area_mm2=D(826)))
    assert result.eccn == "3A090.a"
    assert result.figures_used["tpp"] == "4,992"


def test_tpp_4800_is_enough_for_a_without_die_area():
    result = classify(card(4800))
    assert result.eccn == "3A090.a"
    assert "die_area_mm2" not in result.figures_used


def test_tpp_4000_pd_5_is_3a090b():
    result = classify(card(4000, 800))
    assert result.eccn == "3A090.b"
    assert "2,400 ≤ TPP 4,000 < 4,800 and 1.6 ≤ PD 5.00 < 5.92 → 3A090.b" in result.reasoning


def test_tpp_3000_pd_3_5_is_3a090b():
    result = classify(card(3000, "857.142857"))
    assert result.eccn == "3A090.b"
    assert result.figures_used["pd"] == "3.50"


def test_tpp_2000_pd_20_is_3a090a_via_the_pd_branch():
    result = classify(card(2000, 100))
    assert result.eccn == "3A090.a"
    assert "TPP 2,000 ≥ 1,600 and PD 20.00 ≥ 5.92 → 3A090.a" in result.reasoning


def test_pd_exactly_5_92_is_a_and_just_below_is_b():
    assert classify(card(1776, 300)).eccn == "3A090.a"  # 1,776 / 300 = 5.92
    below = classify(card(1776, 301))  # PD 5.90: TPP < 2,400 but PD ≥ 3.2
    assert below.eccn == "3A090.b"
    assert "TPP 1,776 ≥ 1,600 and 3.2 ≤ PD 5.90 < 5.92 → 3A090.b" in below.reasoning


def test_tpp_2000_pd_2_5_is_below_but_tpp_2500_pd_2_5_is_b():
    assert classify(card(2000, 800)).eccn == "EAR99"
    assert classify(card(2500, 1000)).eccn == "3A090.b"


def test_tpp_1500_is_below_thresholds_with_a_caveat():
    result = classify(card(1500))
    assert (result.eccn, result.status) == ("EAR99", "classified")
    assert "TPP 1,500 < 1,600 → below every 3A090.a/.b threshold" in result.reasoning
    assert any("confirm with the manufacturer's classification" in line for line in result.reasoning)
    assert result.needs_confirmation is True


def test_tpp_3000_without_die_area_is_incomplete():
    result = classify(card(3000))
    assert (result.eccn, result.status) == (None, "incomplete")
    assert result.missing == ["die_area_mm2"]
    assert result.figures_used["tpp"] == "3,000"


def test_no_tpp_and_no_dense_tops_is_incomplete():
    result = classify(card())
    assert (result.eccn, result.status) == (None, "incomplete")
    assert result.missing == ["tpp or dense_tops", "die_area_mm2"]
    assert classify(card(die=500)).missing == ["tpp or dense_tops"]


def test_non_data_centre_tpp_3000_is_not_3a090():
    result = classify(card(3000, 500, data_centre=False))  # PD 6 would otherwise be .a
    assert result.eccn == "EAR99"
    assert any("not designed or marketed for data centres" in line for line in result.reasoning)


def test_non_data_centre_tpp_5000_stays_3a090a():
    result = classify(card(5000, data_centre=False))
    assert result.eccn == "3A090.a"
    assert any("NAC/ACA may be available" in line for line in result.reasoning)


def test_unknown_data_centre_status_is_read_conservatively():
    result = classify(card(3000, 500, data_centre=None))
    assert result.eccn == "3A090.a"
    assert result.figures_used["data_centre"] == "unknown"
    assert any("treated as a data-centre item" in line for line in result.reasoning)


# --- systems -------------------------------------------------------------------------------------


def test_dgx_h100_is_4a090a():
    dgx = PartFigures("NVIDIA DGX H100", "server", accelerator=h100(), accelerator_count=8)
    result = classify(dgx)
    assert result.eccn == "4A090.a"
    assert "contains NVIDIA H100 SXM5 80GB × 8 meeting 3A090.a → 4A090.a" in result.reasoning
    assert "accelerator: TPP 15,832 ≥ 4,800 → 3A090.a (PD not needed)" in result.reasoning
    assert result.figures_used["accelerator.tpp"] == "15,832"
    assert result.figures_used["accelerator_count"] == "8"


def test_server_with_a_3a090b_card_is_4a090b():
    assert classify(PartFigures("srv", "server", accelerator=card(4000, 800))).eccn == "4A090.b"


def test_rack_scale_system_with_gpus_is_4a090():
    nvl72 = PartFigures("GB200 NVL72", "rack", accelerator=card(36000), accelerator_count=72)
    assert classify(nvl72).eccn == "4A090.a"


def test_server_with_incomplete_accelerator_is_incomplete():
    result = classify(PartFigures("srv", "server", accelerator=card(3000)))
    assert (result.eccn, result.status) == (None, "incomplete")
    assert result.missing == ["accelerator.die_area_mm2"]


def test_server_without_accelerator_is_4a994():
    result = classify(PartFigures("CPU server", "server"))
    assert result.eccn == "4A994"
    assert any("AT only" in line for line in result.reasoning)
    assert result.needs_confirmation is True


def test_server_with_sub_threshold_accelerator_is_4a994():
    result = classify(PartFigures("inference box", "server", accelerator=card(1000), accelerator_count=2))
    assert result.eccn == "4A994"
    assert "contains card below 3A090 → not 4A090" in result.reasoning


def test_gpu_server_without_its_accelerator_recorded_is_incomplete():
    result = classify(PartFigures("HGX server", "server", accelerator_count=8))
    assert result.status == "incomplete"
    assert result.missing == ["accelerator"]


# --- network, storage, encryption ------------------------------------------------------------------


def switch(**kw):
    return PartFigures("NVIDIA Quantum-2 QM9700", "network_switch", **kw)


def test_switch_with_mass_market_encryption_is_5a992c():
    result = classify(switch(encryption=True, mass_market=True))
    assert result.eccn == "5A992.c"
    assert result.figures_used == {"category": "network_switch", "encryption": "yes", "mass_market": "yes"}


def test_switch_with_non_mass_market_encryption_is_5a002():
    assert classify(switch(encryption=True, mass_market=False)).eccn == "5A002.a"


def test_switch_with_unknown_encryption_is_incomplete_never_ear99():
    result = classify(switch())
    assert (result.eccn, result.status, result.missing) == (None, "incomplete", ["encryption"])


def test_encrypting_switch_with_unknown_mass_market_status_is_incomplete():
    assert classify(switch(encryption=True)).missing == ["mass_market"]


def test_switch_without_encryption_is_5a991():
    result = classify(switch(encryption=False))
    assert result.eccn == "5A991"
    assert result.needs_confirmation is True


def test_dpu_with_3a090_processor_and_mass_market_crypto_is_5a992z():
    dpu = PartFigures("BlueField-X", "nic_dpu", accelerator=card(5000), encryption=True, mass_market=True)
    result = classify(dpu)
    assert result.eccn == "5A992.z"
    assert "otherwise 5A992.c and contains a 3A090.a processor → 5A992.z" in result.reasoning


def test_dpu_with_3a090_processor_and_non_mass_market_crypto_is_5a002z():
    dpu = PartFigures("DPU", "nic_dpu", accelerator=card(4000, 800), encryption=True, mass_market=False)
    assert classify(dpu).eccn == "5A002.z"


def test_dpu_with_3a090_processor_and_no_crypto_is_4a090():
    dpu = PartFigures("DPU", "nic_dpu", accelerator=card(5000), encryption=False)
    assert classify(dpu).eccn == "4A090.a"


def test_dpu_with_3a090_processor_and_unknown_crypto_is_incomplete():
    dpu = PartFigures("DPU", "nic_dpu", accelerator=card(5000))
    assert classify(dpu).missing == ["encryption"]


def test_storage_without_encryption_is_ear99_with_caveat():
    result = classify(PartFigures("PFS node", "storage_system", encryption=False))
    assert result.eccn == "EAR99"
    assert result.needs_confirmation is True
    assert classify(PartFigures("PFS node", "storage_system")).missing == ["encryption"]


def test_storage_with_mass_market_encryption_is_5a992c():
    assert classify(PartFigures("PFS", "storage_system", encryption=True, mass_market=True)).eccn == "5A992.c"


# --- passive and other -----------------------------------------------------------------------------


@pytest.mark.parametrize(
    "category", ["optical_transceiver", "cable", "pdu", "cooling_cdu", "rack", "ups_battery"]
)
def test_passive_categories_are_ear99_with_reasoning(category):
    result = classify(PartFigures("item", category))
    assert (result.eccn, result.status) == ("EAR99", "classified")
    assert "EAR99" in result.reasoning[0] and "confirm per item" in result.reasoning[0]
    assert result.figures_used["category"] == category


def test_transceiver_with_unknown_encryption_is_ear99_and_says_why():
    result = classify(PartFigures("800G OSFP SR8", "optical_transceiver"))
    assert result.eccn == "EAR99"
    assert "such items do not implement it" in result.reasoning[0]


def test_managed_pdu_with_tls_management_follows_the_encryption_rule():
    pdu = PartFigures("managed PDU", "pdu", encryption=True, mass_market=True)
    assert classify(pdu).eccn == "5A992.c"


def test_other_needs_a_compliance_officer():
    result = classify(PartFigures("mystery", "other"))
    assert (result.eccn, result.status) == (None, "incomplete")
    assert result.missing == ["a compliance officer's classification"]


def test_hbm_above_2_gb_s_per_mm2_is_3a090c():
    result = classify(PartFigures("HBM3e stack", "other", memory_bandwidth_density=D("3.3")))
    assert result.eccn == "3A090.c"
    assert classify(PartFigures("HBM", "other", memory_bandwidth_density=D(2))).status == "incomplete"


# --- inputs --------------------------------------------------------------------------------------


def test_unknown_category_is_rejected():
    with pytest.raises(ValueError, match="unknown category 'gpu'"):
        PartFigures("x", "gpu")


def test_floats_are_rejected_and_ints_are_converted():
    with pytest.raises(TypeError, match="tpp must be a Decimal"):
        PartFigures("x", "accelerator", tpp=4800.0)
    assert PartFigures("x", "accelerator", tpp=4800).tpp == D(4800)


@pytest.mark.parametrize(
    "kw", [{"die_area_mm2": D(0)}, {"tpp": D(-1)}, {"dense_tops": {0: D(1)}}, {"accelerator_count": -1}]
)
def test_impossible_figures_are_rejected(kw):
    with pytest.raises(ValueError):
        PartFigures("x", "accelerator", **kw)


def test_fmt():
    assert fmt(D(15832)) == "15,832"
    assert fmt(D("15832.00")) == "15,832"
    assert fmt(D("989.50")) == "989.5"
    assert fmt(D("19.44963"), 2) == "19.45"
    assert fmt(D("1E+3")) == "1,000"
