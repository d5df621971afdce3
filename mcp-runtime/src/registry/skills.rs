//! The skills a catalog serves: each skill's entry as `skills/list` and
//! `skills/get` show it, serialized once, and the directories of their
//! files as `resources/directory/read` lists them.

use std::collections::{BTreeMap, HashMap};

use serde_json::value::RawValue;

use crate::protocol::{DIRECTORY_MIME_TYPE, Resource, Skill, SkillFile, SkillFiles};
use crate::registry::entry::{Owner, ResourceEntry, ResourceKind};

/// A skill as served: its entry, and the mounted remote that serves it.
#[derive(Clone, Debug)]
pub(crate) struct SkillEntry {
    pub(crate) skill: Skill,
    /// Not read yet: kept so that a remote's skills are told apart from
    /// this server's own when they change.
    #[allow(dead_code)]
    pub(crate) owner: Option<Owner>,
}

impl SkillEntry {
    pub(crate) fn new(skill: Skill, owner: Option<Owner>) -> Self {
        SkillEntry { skill, owner }
    }

    /// The URI of its `SKILL.md`, which names it.
    pub(crate) fn uri(&self) -> &str {
        &self.skill.uri
    }

    /// The entry with every URI rewritten by `rename` (a mount's namespace).
    pub(crate) fn renamed(mut self, rename: impl Fn(&str) -> String) -> Self {
        self.skill.uri = rename(&self.skill.uri);
        if let SkillFiles::Listed(files) = &mut self.skill.resources {
            for file in files {
                file.uri = rename(&file.uri);
            }
        }
        self
    }
}

/// One child of a directory, as listed.
struct Child {
    name: String,
    json: Box<RawValue>,
}

/// The skills of a catalog, sorted by URI.
#[derive(Default)]
pub(crate) struct SkillIndex {
    skills: Vec<(SkillEntry, Box<RawValue>)>,
    by_uri: HashMap<String, usize>,
    /// Each directory's children, sorted by name.
    directories: HashMap<String, Vec<Child>>,
}

impl SkillIndex {
    /// The index of `skills`, their files' metadata taken from the
    /// resources that serve them (`resource(uri)`).
    pub(crate) fn build<'a>(
        mut skills: Vec<SkillEntry>,
        resource: impl Fn(&str) -> Option<&'a ResourceEntry>,
    ) -> Result<Self, String> {
        skills.sort_by(|a, b| a.skill.uri.cmp(&b.skill.uri));
        if let Some(pair) = skills.windows(2).find(|pair| pair[0].skill.uri == pair[1].skill.uri) {
            return Err(format!("two skills have the URI {}", pair[0].skill.uri));
        }
        let mut tree: BTreeMap<String, BTreeMap<String, Option<&SkillFile>>> = BTreeMap::new();
        for entry in &skills {
            let SkillFiles::Listed(files) = &entry.skill.resources else { continue };
            let Some(root) = entry.skill.uri.rsplit_once('/').map(|(root, _)| root) else { continue };
            for file in files {
                let Some(rest) = file.uri.strip_prefix(root).and_then(|r| r.strip_prefix('/')) else { continue };
                let mut dir = root.to_owned();
                let segments: Vec<&str> = rest.split('/').collect();
                for (i, segment) in segments.iter().enumerate() {
                    let is_file = i + 1 == segments.len();
                    tree.entry(dir.clone())
                        .or_default()
                        .entry((*segment).to_owned())
                        .or_insert(is_file.then_some(file));
                    dir = format!("{dir}/{segment}");
                }
            }
        }
        let mut directories = HashMap::with_capacity(tree.len());
        for (dir, children) in tree {
            let mut listed = Vec::with_capacity(children.len());
            for (name, file) in children {
                let uri = format!("{dir}/{name}");
                let mut child = Resource::new(uri.clone(), name.clone());
                match file {
                    Some(file) => {
                        child.size = Some(file.size);
                        child.mime_type = resource(&uri).and_then(|r| match &r.kind {
                            ResourceKind::Fixed(def) => def.mime_type.clone(),
                            ResourceKind::Template(..) => None,
                        });
                    }
                    None => child.mime_type = Some(DIRECTORY_MIME_TYPE.to_owned()),
                }
                let json = serde_json::value::to_raw_value(&child).map_err(|e| e.to_string())?;
                listed.push(Child { name, json });
            }
            directories.insert(dir, listed);
        }
        let mut indexed = Vec::with_capacity(skills.len());
        for entry in skills {
            let json = serde_json::value::to_raw_value(&entry.skill).map_err(|e| e.to_string())?;
            indexed.push((entry, json));
        }
        let by_uri = indexed.iter().enumerate().map(|(i, (e, _))| (e.skill.uri.clone(), i)).collect();
        Ok(SkillIndex { skills: indexed, by_uri, directories })
    }

    /// The entries, to build a changed catalog from.
    pub(crate) fn entries(&self) -> Vec<SkillEntry> {
        self.skills.iter().map(|(entry, _)| entry.clone()).collect()
    }

    pub(crate) fn is_empty(&self) -> bool {
        self.skills.is_empty()
    }

    pub(crate) fn len(&self) -> usize {
        self.skills.len()
    }

    /// The URI of the skill at `position`, its sort key.
    pub(crate) fn uri(&self, position: usize) -> &str {
        &self.skills[position].0.skill.uri
    }

    /// The entry at `position`, as listed.
    pub(crate) fn json(&self, position: usize) -> &RawValue {
        &self.skills[position].1
    }

    /// The entry of the skill whose `SKILL.md` is at `uri`, as listed.
    pub(crate) fn get(&self, uri: &str) -> Option<&RawValue> {
        self.by_uri.get(uri).map(|&i| &*self.skills[i].1)
    }

    /// The children of the directory at `uri`, sorted by name: each one's
    /// name and its resource as listed.
    pub(crate) fn directory(&self, uri: &str) -> Option<Vec<(&str, &RawValue)>> {
        self.directories.get(uri).map(|children| children.iter().map(|c| (c.name.as_str(), &*c.json)).collect())
    }
}
