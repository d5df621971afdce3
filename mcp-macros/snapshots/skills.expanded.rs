fn skills() -> ::mcp_runtime::skills::Skills {
    {
        static SKILLS: &[::mcp_runtime::skills::EmbeddedSkill] = &[
            ::mcp_runtime::skills::EmbeddedSkill {
                path: "acme/refunds",
                files: &[
                    ::mcp_runtime::skills::EmbeddedFile {
                        path: "SKILL.md",
                        bytes: ::core::include_bytes!(
                            "$CARGO_MANIFEST_DIR/snapshots/skills/acme/refunds/SKILL.md"
                        ),
                    },
                ],
            },
            ::mcp_runtime::skills::EmbeddedSkill {
                path: "pdf-processing",
                files: &[
                    ::mcp_runtime::skills::EmbeddedFile {
                        path: "SKILL.md",
                        bytes: ::core::include_bytes!(
                            "$CARGO_MANIFEST_DIR/snapshots/skills/pdf-processing/SKILL.md"
                        ),
                    },
                    ::mcp_runtime::skills::EmbeddedFile {
                        path: "references/FORMS.md",
                        bytes: ::core::include_bytes!(
                            "$CARGO_MANIFEST_DIR/snapshots/skills/pdf-processing/references/FORMS.md"
                        ),
                    },
                ],
            },
        ];
        ::mcp_runtime::skills::Skills::__embedded(SKILLS)
    }
}
