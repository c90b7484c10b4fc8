"""The demo clusters: the 512-GPU speech-AI cluster in Chennai (64 HGX H100 servers × 8 GPUs,
400 Gb/s per GPU, liquid-cooled racks over 100 kW, a checkpoint every 30 minutes) and 64 Cerebras
CS-3 systems for India, both for Chennai AI Compute at its Siruseri data centre, each sized and
made into a bill of materials.

The parts are the demo catalogue's (apps/catalog/data/demo_parts.json, estimates marked there),
plus one added here: a liquid-cooled 4U HGX H100 server, since the seed's racks of over 100 kW
are direct-to-chip liquid racks (the DGX H100 and the 8U OEM servers are air-cooled, at most six
to a 48U rack: about 61 kW). The site's power and cooling are set here when it has none [E].
Safe to run again: nothing is made twice.
"""

from __future__ import annotations

import datetime as dt
from decimal import Decimal

from apps.accounts.models import Organisation, OrganisationKind, User
from apps.accounts.roles import Role
from apps.catalog.demo import _tariff_codes
from apps.catalog.models import Manufacturer, Part
from apps.compliance import services as compliance
from apps.shipments.models import Site

from . import services
from .models import ClusterDesign, ComplianceSummary, RunStatus
from .services.compliance_summary import compliance_summary_now

SITE = "Chennai AI Compute — Siruseri DC1"
# Suppliers' lead times by part category, in days from order to ready at the factory [E]: round
# figures of the kind quoted for AI hardware in 2024–25 (servers and CDUs longest, racks and PDUs
# from stock in weeks). The shipment plan reads each line as ready that many days after its date.
LEAD_TIME_DAYS = {
    "server": 70,
    "network_switch": 56,
    "nic_dpu": 56,
    "optical_transceiver": 42,
    "cable": 28,
    "storage_system": 56,
    "rack": 21,
    "pdu": 21,
    "cooling_cdu": 84,
}
CUSTOMER = "Chennai AI Compute Pvt. Ltd."
SPEECH = "Speech-AI training cluster, 512 × H100"  # 64 liquid-cooled HGX H100 servers
CEREBRAS = "Cerebras CS-3 cluster, 64 systems"


def _part(number: str) -> Part:
    operator = Organisation.objects.get(kind=OrganisationKind.OPERATOR)
    return Part.objects.get(owner=operator, part_number=number)


LIQUID_HGX = "SYS-421GE-TNHR2-LCC"


def _liquid_hgx_server(operator: Organisation) -> Part:
    """Supermicro's liquid-cooled 4U HGX H100 8-GPU server: twelve fit a 48U rack (~122 kW)."""
    part = Part.objects.filter(owner=operator, part_number=LIQUID_HGX).first()
    if part is not None:
        return part
    part = Part(
        owner=operator,
        manufacturer=Manufacturer.objects.get_or_create(name="Supermicro", defaults={"country": "US"})[0],
        part_number=LIQUID_HGX,
        name="Supermicro SYS-421GE-TNHR2-LCC (HGX H100 8-GPU, liquid-cooled)",
        description="4U OEM server with an NVIDIA HGX H100 8-GPU baseboard, two Xeon CPUs and direct-to-chip "
        "cold plates on GPUs and CPUs. [E] power draw, weight, dimensions, value and origin are estimates.",
        category="server",
        unit_weight_kg=Decimal("100"),
        length_cm=Decimal("84.00"),
        width_cm=Decimal("44.70"),
        height_cm=Decimal("17.80"),
        unit_value=Decimal("300000.00"),
        currency="USD",
        country_of_origin="US",
        hs_code="847150",
        power_draw_w=10200,
        rack_units=4,
        port_count=8,
        port_speed_gbps=400,
        ports_per_cage=1,  # 8 single-port ConnectX-7 cards
        gpus_per_server=8,
        accelerator=Part.objects.get(owner=operator, part_number="692-2G520-0200-000"),
        data_centre=True,
        cpu_only=False,
        attributes={
            "cooling": "liquid (direct-to-chip)",
            "liquid_fraction": 0.8,
            "configured_with": "8x H100 SXM5 80GB, 8x ConnectX-7",
            "estimated_fields": [
                "attributes.liquid_fraction",
                "country_of_origin",
                "dimensions",
                "ports_per_cage",
                "power_draw_w",
                "unit_value",
                "unit_weight_kg",
            ],
        },  # fmt: skip
    )
    part.full_clean()
    part.save()
    _tariff_codes(part)
    # Classified as every demo part is (the compliance step ran before this part existed).
    compliance.part_classify(part=part)
    return part


def _common() -> dict:
    return {
        "storage_appliance": _part("AI400X2"),
        "storage_fabric": "infiniband",
        "storage_switch": _part("MQM9700-NS2F"),
        "storage_oversubscription": Decimal("1.33"),
        "inband_switch": _part("MSN4600-CS2FC"),
        "oob_switch": _part("MSN2201-CB2FC"),
        "rack": _part("AR3307"),
        "pdu": _part("GEIST-RPDU-3P415V-60A"),
        "electricity_price": Decimal("8.5000"),  # INR per kWh, industrial tariff in Tamil Nadu [E]
        "electricity_currency": "INR",
        "restart_minutes": Decimal("10"),
        "required_on_site": dt.date(2027, 6, 30),
    }


def _speech(customer: Organisation, site: Site, server: Part) -> dict:
    return _common() | {
        "customer": customer,
        "site": site,
        "name": SPEECH,
        "system": server,
        "gpus": 512,
        "compute_fabric": "infiniband",
        "compute_bandwidth_gbps": 400,
        "compute_switch": _part("MQM9700-NS2F"),
        "compute_topology": "auto",
        "compute_oversubscription": Decimal("1"),
        "su_systems": 32,
        # The server's 8 single-port ConnectX-7 cages take a single-port 400G module each; the
        # switches' twin-port cages take twin-port 800G modules.
        "compute_node_optic": _part("MMA4Z00-NS400"),
        "compute_switch_optic": _part("MMA4Z00-NS"),
        "compute_cable": _part("MFP7E10-N030"),
        "storage_capacity_tb": Decimal("2000"),
        # The storage fabric as NVIDIA's H100 design cables it: a 400G single-port module at the
        # server's storage NIC, twin-port 800G modules at the switches, multimode fibre.
        "storage_node_optic": _part("MMA4Z00-NS400"),
        "storage_switch_optic": _part("MMA4Z00-NS"),
        "storage_cable": _part("MFP7E10-N030"),
        "storage_read_gbs_per_node": Decimal("8"),
        "storage_write_gbs_per_node": Decimal("4"),
        "rack_power_limit_kw": Decimal("130"),  # 12 servers of 10.2 kW: about 122 kW a rack
        "pdus_per_rack": 4,
        "pdu_redundancy": 1,
        "cooling": "liquid",
        "pue": Decimal("1.20"),
        "cdu": _part("CoolChip-CDU-100"),
        "cdu_redundancy": 1,
        "params_billion": Decimal("70"),
        "bytes_per_param": Decimal("14"),
        # Llama 3: 419 interruptions in 54 days on 16,384 H100s ≈ one per 50,700 GPU-hours [P].
        "gpu_mtbf_hours": Decimal("50000"),
        "checkpoint_interval_minutes": Decimal("30"),
    }


def _cerebras(customer: Organisation, site: Site) -> dict:
    return _common() | {
        "customer": customer,
        "site": site,
        "name": CEREBRAS,
        "system": _part("CS-3"),
        "gpus": 64,  # one wafer-scale engine per system
        "compute_fabric": "ethernet",
        "compute_bandwidth_gbps": 400,
        # A CS-3's own 12 × 100 GbE ports reach the fabric (its part's port figures).
        "compute_switch": _part("MSN4600-CS2FC"),
        "compute_topology": "auto",
        "compute_oversubscription": Decimal("1"),
        "su_systems": 16,
        "compute_cable": _part("MFP7E10-N010"),
        "compute_node_optic": _part("MMA1Z00-NS400"),
        "compute_switch_optic": _part("MMA1Z00-NS400"),
        "storage_capacity_tb": Decimal("1000"),
        "storage_read_gbs_per_node": Decimal("8"),
        "storage_write_gbs_per_node": Decimal("4"),
        "rack_power_limit_kw": Decimal("40"),  # air: one 23 kW CS-3 a rack
        "pdus_per_rack": 4,
        "pdu_redundancy": 1,
        # The CS-3 cools its wafer in a closed loop and rejects the heat to air.
        "cooling": "air",
        "pue": Decimal("1.45"),
        "params_billion": Decimal("70"),
        "bytes_per_param": Decimal("14"),
        "gpu_mtbf_hours": Decimal("20000"),  # per system [E]
        "checkpoint_interval_minutes": Decimal("30"),
    }


def load(**_options) -> dict[str, int]:
    operator = Organisation.objects.get(kind=OrganisationKind.OPERATOR)
    customer = Organisation.objects.get(legal_name=CUSTOMER)
    planner = User.objects.filter(organisation=operator, role=Role.COORDINATOR).order_by("pk").first()
    site = Site.objects.get(name=SITE)
    if site.power_mw is None and not site.cooling_offered:
        # A new hall of the campus [E]: 12 MW for IT, air and direct-to-chip liquid.
        site.power_mw = Decimal("12")
        site.cooling_air = True
        site.cooling_liquid = True
        site.full_clean()
        site.save()
    made = {"cluster designs": 0, "sizing runs": 0, "bills of materials": 0, "compliance summaries": 0}
    server = _liquid_hgx_server(operator)
    for fields in (_speech(customer, site, server), _cerebras(customer, site)):
        design = ClusterDesign.objects.filter(owner=operator, name=fields["name"]).first()
        if design is None:
            design = services.design_create(owner=operator, fields=fields, actor=planner)
            made["cluster designs"] += 1
        run = design.runs.filter(status=RunStatus.SUCCEEDED).order_by("-number").first()
        if run is None and not design.runs.exists():
            run = services.sizing_run_now(design=design, actor=planner)
            made["sizing runs"] += 1
        if run is not None and run.status == RunStatus.SUCCEEDED and not design.boms.exists():
            bom = services.bom_from_run(run=run, actor=planner)
            for line in bom.lines.select_related("part"):
                if line.lead_time_days is None and line.part.category in LEAD_TIME_DAYS:
                    services.bom_line_lead_time_set(
                        line=line, lead_time_days=LEAD_TIME_DAYS[line.part.category], actor=planner
                    )
            made["bills of materials"] += 1
        if design.boms.exists() and not ComplianceSummary.objects.filter(bom__design=design).exists():
            compliance_summary_now(design=design, actor=planner)
            made["compliance summaries"] += 1
    return made
