//! The skills a catalog serves: each skill's entry as `skills/list` and
//! `skills/get` show it, serialized once, and the directories of their
//! files as `resources/directory/read` lists them.

use std::collections::{BTreeMap, HashMap};

use serde_json::value::RawValue;

use crate::protocol::{DIRECTORY_MIME_TYPE, Resource, Skill, SkillFile, SkillFiles};
use crate::registry::entry::{ResourceEntry, ResourceKind};

/// `skill` with every URI rewritten by `rename` (a mount's namespace).
pub(crate) fn renamed(mut skill: Skill, rename: impl Fn(&str) -> String) -> Skill {
    skill.uri = rename(&skill.uri);
    if let SkillFiles::Listed(files) = &mut skill.resources {
        for file in files {
            file.uri = rename(&file.uri);
        }
    }
    skill
}

/// One child of a directory, as listed.
struct Child {
    name: String,
    json: Box<RawValue>,
}

/// The skills of a catalog, sorted by URI.
#[derive(Default)]
pub(crate) struct SkillIndex {
    skills: Vec<(Skill, Box<RawValue>)>,
    by_uri: HashMap<String, usize>,
    /// Each directory's children, sorted by name.
    directories: HashMap<String, Vec<Child>>,
}

impl SkillIndex {
    /// The index of `skills`, their files' metadata taken from the
    /// resources that serve them (`resource(uri)`).
    pub(crate) fn build<'a>(
        mut skills: Vec<Skill>,
        resource: impl Fn(&str) -> Option<&'a ResourceEntry>,
    ) -> Result<Self, String> {
        skills.sort_by(|a, b| a.uri.cmp(&b.uri));
        if let Some(pair) = skills.windows(2).find(|pair| pair[0].uri == pair[1].uri) {
            return Err(format!("two skills have the URI {}", pair[0].uri));
        }
        let mut tree: BTreeMap<String, BTreeMap<String, Option<&SkillFile>>> = BTreeMap::new();
        for entry in &skills {
            let SkillFiles::Listed(files) = &entry.resources else { continue };
            let Some(root) = entry.uri.rsplit_once('/').map(|(root, _)| root) else { continue };
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
            let json = serde_json::value::to_raw_value(&entry).map_err(|e| e.to_string())?;
            indexed.push((entry, json));
        }
        let by_uri = indexed.iter().enumerate().map(|(i, (e, _))| (e.uri.clone(), i)).collect();
        Ok(SkillIndex { skills: indexed, by_uri, directories })
    }

    /// The entries, to build a changed catalog from.
    pub(crate) fn entries(&self) -> Vec<Skill> {
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
        &self.skills[position].0.uri
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
