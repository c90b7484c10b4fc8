from decimal import Decimal as D

import pytest

from apps.compliance.engines.classification import (
    PD_A,
    RULE_VERSION,
    FigureError,
    PartFigures,
    classify,
    compute_tpp,
    fmt,
    fmt_against,
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
    notes = "[15 CFR 774 Supp. 1, 3A090 Technical Notes]"
    assert result.reasoning == [
        f"dense 8-bit 1,979 TOPS × 8 = 15,832 {notes}: TPP = 2 × MacTOPS × bit length, dense",
        f"PD = TPP 15,832 / die area 814 mm² = 19.45 {notes}: PD = TPP / applicable die area",
        "TPP 15,832 ≥ 4,800 → 3A090.a (PD not needed) [15 CFR 774 Supp. 1, ECCN 3A090.a.1]",
    ]
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
    assert (
        "2,400 ≤ TPP 4,000 < 4,800 and 1.6 ≤ PD 5.00 < 5.92 → 3A090.b [15 CFR 774 Supp. 1, ECCN 3A090.b.1]"
        in result.reasoning
    )


def test_tpp_3000_pd_3_5_is_3a090b():
    result = classify(card(3000, "857.142857"))
    assert result.eccn == "3A090.b"
    assert result.figures_used["pd"] == "3.50"


def test_tpp_2000_pd_20_is_3a090a_via_the_pd_branch():
    result = classify(card(2000, 100))
    assert result.eccn == "3A090.a"
    assert (
        "TPP 2,000 ≥ 1,600 and PD 20.00 ≥ 5.92 → 3A090.a [15 CFR 774 Supp. 1, ECCN 3A090.a.2]"
        in result.reasoning
    )


def test_pd_exactly_5_92_is_a_and_just_below_is_b():
    assert classify(card(1776, 300)).eccn == "3A090.a"  # 1,776 / 300 = 5.92
    below = classify(card(1776, 301))  # PD 5.90: TPP < 2,400 but PD ≥ 3.2
    assert below.eccn == "3A090.b"
    assert (
        "TPP 1,776 ≥ 1,600 and 3.2 ≤ PD 5.90 < 5.92 → 3A090.b [15 CFR 774 Supp. 1, ECCN 3A090.b.2]"
        in below.reasoning
    )


def test_tpp_2000_pd_2_5_is_below_but_tpp_2500_pd_2_5_is_b():
    assert classify(card(2000, 800)).eccn == "EAR99"
    assert classify(card(2500, 1000)).eccn == "3A090.b"


def test_tpp_1500_is_below_thresholds_with_a_caveat():
    result = classify(card(1500))
    assert (result.eccn, result.status) == ("EAR99", "classified")
    assert (
        "TPP 1,500 < 1,600 → below every 3A090.a/.b threshold [15 CFR 774 Supp. 1, ECCN 3A090.a and .b]"
        in result.reasoning
    )
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
    assert (
        "contains NVIDIA H100 SXM5 80GB × 8 meeting 3A090.a → 4A090.a [15 CFR 774 Supp. 1, ECCN 4A090.a]"
        in result.reasoning
    )
    assert (
        "accelerator: TPP 15,832 ≥ 4,800 → 3A090.a (PD not needed) [15 CFR 774 Supp. 1, ECCN 3A090.a.1]"
        in result.reasoning
    )
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


def test_server_affirmed_cpu_only_is_4a994_needing_confirmation():
    result = classify(PartFigures("CPU server", "server", cpu_only=True))
    assert result.eccn == "4A994"
    assert any("AT only" in line for line in result.reasoning)
    assert result.needs_confirmation is True


def test_server_with_sub_threshold_accelerator_is_4a994():
    result = classify(PartFigures("inference box", "server", accelerator=card(1000), accelerator_count=2))
    assert result.eccn == "4A994"
    assert "contains card below 3A090 → not 4A090 [15 CFR 774 Supp. 1, ECCN 4A090]" in result.reasoning


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
    assert (
        "otherwise 5A992.c and contains a 3A090.a processor → 5A992.z [15 CFR 774 Supp. 1, ECCN 5A992.z]"
        in result.reasoning
    )


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


# --- servers: an accelerator, or an affirmed CPU-only computer ---------------------------------------


def test_server_with_no_accelerator_and_no_gpu_count_is_incomplete():
    # Finding: "DGX B200" saved as a server with nothing recorded was 4A994 and passed to Vietnam.
    result = classify(PartFigures("NVIDIA DGX B200", "server"))
    assert (result.eccn, result.status) == (None, "incomplete")
    assert result.missing == ["accelerator (or affirm the server is CPU-only)"]
    assert result.figures_used["cpu_only"] == "unknown"
    assert result.needs_confirmation is False


def test_server_affirmed_not_cpu_only_without_an_accelerator_is_incomplete():
    result = classify(PartFigures("GPU box", "server", cpu_only=False))
    assert result.missing == ["accelerator (or affirm the server is CPU-only)"]


def test_gpu_count_without_accelerator_stays_incomplete_even_if_called_cpu_only():
    result = classify(PartFigures("HGX server", "server", accelerator_count=8, cpu_only=True))
    assert (result.status, result.missing) == ("incomplete", ["accelerator"])
    assert any("contradicts" in line for line in result.reasoning)


def test_cpu_only_flag_with_an_accelerator_recorded_is_overruled_by_the_accelerator():
    result = classify(PartFigures("srv", "server", accelerator=h100(), accelerator_count=8, cpu_only=True))
    assert result.eccn == "4A090.a"
    assert any("the accelerator decides" in line for line in result.reasoning)


# --- citations and threshold formatting ------------------------------------------------------------

CCL = "15 CFR 774 Supp. 1"


@pytest.mark.parametrize(
    "figures, eccn, citation",
    [
        (card(4800), "3A090.a", f"{CCL}, ECCN 3A090.a.1"),
        (card(2000, 100), "3A090.a", f"{CCL}, ECCN 3A090.a.2"),
        (card(4000, 800), "3A090.b", f"{CCL}, ECCN 3A090.b.1"),
        (card(1776, 301), "3A090.b", f"{CCL}, ECCN 3A090.b.2"),
        (card(1500), "EAR99", f"{CCL}, ECCN 3A090.a and .b"),
        (card(3000, 500, data_centre=False), "EAR99", f"{CCL}, Note to 3A090"),
        (PartFigures("srv", "server", accelerator=card(5000)), "4A090.a", f"{CCL}, ECCN 4A090.a"),
        (PartFigures("srv", "server", accelerator=card(4000, 800)), "4A090.b", f"{CCL}, ECCN 4A090.b"),
        (PartFigures("CPU box", "server", cpu_only=True), "4A994", f"{CCL}, ECCN 4A994"),
        (switch(encryption=True, mass_market=True), "5A992.c", f"{CCL}, ECCN 5A992.c"),
        (switch(encryption=True, mass_market=False), "5A002.a", f"{CCL}, ECCN 5A002.a"),
        (switch(encryption=False), "5A991", f"{CCL}, ECCN 5A991"),
        (
            PartFigures("D", "nic_dpu", accelerator=card(5000), encryption=True, mass_market=True),
            "5A992.z",
            f"{CCL}, ECCN 5A992.z",
        ),
        (PartFigures("HBM", "other", memory_bandwidth_density=D("3.3")), "3A090.c", f"{CCL}, ECCN 3A090.c"),
    ],
)
def test_the_decisive_line_cites_the_ccl_paragraph(figures, eccn, citation):
    result = classify(figures)
    assert result.eccn == eccn
    assert any(citation in line for line in result.reasoning), result.reasoning


def test_tpp_and_pd_lines_cite_the_3a090_technical_notes():
    result = classify(h100())
    assert any(line.startswith("dense 8-bit 1,979 TOPS × 8 = 15,832") and "3A090 Technical Note" in line
               for line in result.reasoning)  # fmt: skip
    assert any(line.startswith("PD = ") and "3A090 Technical Note" in line for line in result.reasoning)


def test_a_pd_just_under_the_threshold_never_prints_equal_to_it():
    # TPP 2,959.95 / 500 mm² = PD 5.9199: rounded to 2 places it would read "PD 5.92 < 5.92".
    result = classify(card("2959.95", 500))
    assert result.eccn == "3A090.b"
    assert any("1.6 ≤ PD 5.9199 < 5.92 → 3A090.b" in line for line in result.reasoning), result.reasoning
    assert not any("5.92 < 5.92" in line for line in result.reasoning)
    assert result.figures_used["pd"] == "5.9199"


def test_a_pd_just_over_the_threshold_never_prints_equal_to_it():
    result = classify(card("1776.12", 300))  # PD 5.9204
    assert result.eccn == "3A090.a"
    assert any("PD 5.9204 ≥ 5.92" in line for line in result.reasoning), result.reasoning


def test_fmt_against_shows_as_many_places_as_the_comparison_needs():
    assert fmt_against(D("5.9199"), PD_A) == "5.9199"
    assert fmt_against(D("5.91999999"), PD_A) == "5.91999999"
    assert fmt_against(D("5.92"), PD_A) == "5.92"
    assert fmt_against(D("19.44963"), PD_A) == "19.45"
    assert fmt_against(D("3.19999"), D("1.6"), D("3.2")) == "3.19999"
    assert fmt_against(D("1.6"), D("1.6"), D("3.2")) == "1.60"


# --- bad figures name themselves ----------------------------------------------------------------


@pytest.mark.parametrize(
    "kw, figure",
    [
        ({"die_area_mm2": D(0)}, "die_area_mm2"),
        ({"tpp": D(-1)}, "tpp"),
        ({"tpp": "lots"}, "tpp"),
        ({"memory_bandwidth_density": D("NaN")}, "memory_bandwidth_density"),
        ({"dense_tops": {8: "x"}}, "dense_tops"),
        ({"accelerator_count": -1}, "accelerator_count"),
    ],
)
def test_a_bad_figure_raises_a_figure_error_naming_it(kw, figure):
    with pytest.raises(FigureError) as caught:
        PartFigures("x", "accelerator", **kw)
    assert caught.value.figure == figure
